"""The pytest side of a conformance run: target options, the shared server fixture, and evidence collection.

Load with `-p conformance.suite.plugin`. The plugin only gathers results (`conformance.core.results`); report
writers and the gate read those, never pytest internals.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import gc
import hashlib
import os
import re
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import pytest
from hypothesis.errors import Flaky

from conformance.calls.probes import probes_first
from conformance.catalog.shard_costs import Costs, ShardCostsError, shard_costs
from conformance.core.arguments_map import renames_of
from conformance.core.create import create_file
from conformance.core.errors import HarnessError
from conformance.core.failure_text import MESSAGE_CHARS, raised_message, readable, readable_example
from conformance.core.identity import ShardIdentity, harness_identity, info_texts, parse_shard
from conformance.core.idle import IDLE_HOLD
from conformance.core.model_json import model_json
from conformance.core.results import (
    ClaimObservation,
    Counterexample,
    GrowthPoint,
    Observed,
    RunResults,
    TestOutcome,
    TranscriptEvent,
)
from conformance.drivers import cancel
from conformance.drivers.capture import DEFAULT_MAX_FRAME
from conformance.drivers.errors import DriverError, ServerTimeout, TargetFailed
from conformance.drivers.process import processes_started
from conformance.drivers.sdk_sent import SENT
from conformance.drivers.transcript import Transcript
from conformance.drivers.wire import set_max_frame
from conformance.suite.breaker import Breaker
from conformance.suite.contradiction import contradicted, ended_by, idled
from conformance.suite.era_meetings import EraMeetings, eras_of
from conformance.suite.fresh_runs import FreshRunner
from conformance.suite.handover import handover_of
from conformance.suite.hypothesis_hooks import ExampleStatus, watch_examples
from conformance.suite.profiles import (
    PROFILES,
    SHRINK_BUDGET,
    default_profile,
    load_profile,
    register_profiles,
)
from conformance.suite.rawproc import RawPool
from conformance.suite.session import LabelServer, ServerSession, Spare
from conformance.suite.sharding import share_of
from conformance.suite.shrinking import ShrinkBudget
from conformance.targets.specs import Target, resolve_target

DEFAULT_TARGETS = ["reference"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "sequentialthinking conformance")
    group.addoption("--target", action="append", dest="conformance_targets", default=None,
                    metavar="SPEC", help="reference | npm:<version> | cmd:<command line> (repeatable)")
    group.addoption("--profile", dest="conformance_profile", choices=PROFILES, default=None,
                    help="hypothesis profile: dev, ci or thorough (default: ci under CI, else dev)")
    group.addoption("--results-dir", dest="conformance_results_dir", default=None, metavar="DIR",
                    help="write results-<target>.json and transcripts/ here")
    group.addoption("--target-cache", dest="conformance_cache", default=None, metavar="DIR",
                    help="where npm targets are installed (default: the user cache directory)")
    group.addoption("--call-timeout", dest="conformance_timeout", type=float, default=10.0,
                    help="seconds a server may take to answer one request")
    group.addoption("--max-frame", dest="conformance_max_frame", type=int, default=DEFAULT_MAX_FRAME,
                    help="longest stdout frame read from a server, in bytes (a longer one is an error)")
    group.addoption("--example-db", dest="conformance_example_db", default=None, metavar="DIR",
                    help="hypothesis' example database: failing examples saved here, replayed first later")
    group.addoption("--records", dest="conformance_records", default=None, metavar="IDS",
                    help="run only the tests evidencing one of these canonical record IDs (comma-separated)")
    group.addoption("--era", dest="conformance_eras", default=None, metavar="ERAS",
                    help="the clients the specification's records are judged with: default (2024-11-05 and "
                         "auto), all, or revisions and auto, comma-separated (suite/era_meetings.py)")
    group.addoption("--arguments-map", dest="conformance_arguments_map", default=None,
                    metavar="FILE|SPELLING",
                    help="the original's argument names as the target spells them, in every call sent "
                         "(core/arguments_map.py)")
    group.addoption("--shard", dest="conformance_shard", default=None, metavar="I/N",
                    help="run only shard I of N of the collected tests (suite/sharding.py)")
    parser.addini("conformance_targets", "targets when --target is not given", type="args",
                  default=DEFAULT_TARGETS)


@dataclass(repr=False)
class _RunState:
    """Everything the plugin gathers in one session, per target spec."""

    profile: str
    results_dir: Path | None
    cache: Path | None
    timeout: float
    started: str
    shard: ShardIdentity | None = None
    costs: Costs | None = None
    collected: list[str] = field(default_factory=list)
    targets: dict[str, Target] = field(default_factory=dict)
    sessions: dict[str, ServerSession] = field(default_factory=dict)
    outcomes: dict[str, list[TestOutcome]] = field(default_factory=dict)
    examples: dict[str, int] = field(default_factory=dict)
    marks: dict[str, int] = field(default_factory=dict)
    shared_marks: dict[str, int] = field(default_factory=dict)
    """Where the shared process's uses stood when the test's current example began
    (`ServerSession.shared_mark`): a failure whose calls since then met two processes is the process's life,
    not the check's record."""
    failing_spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    sdk_marks: dict[str, int] = field(default_factory=dict)
    """Where the official client's sent frames stood (`sdk_sent.SENT`) as the test's current example began."""
    sdk_failing: dict[str, tuple[int, int]] = field(default_factory=dict)
    """The span of those frames its last failing example sent: a check through the SDK's call sequence."""
    first_failure: dict[str, float] = field(default_factory=dict)
    target_failures: dict[str, tuple[DriverError, int, int]] = field(default_factory=dict)
    breaker: Breaker = field(default_factory=Breaker)
    shrinking: ShrinkBudget = field(default_factory=ShrinkBudget)
    raw_pool: RawPool = field(init=False)
    fresh_runs: FreshRunner = field(init=False)
    era_meetings: EraMeetings = field(init=False)
    unwatch: Callable[[], None] | None = None
    current: str | None = None
    current_spec: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.raw_pool = RawPool(self.timeout)
        self.fresh_runs = FreshRunner(self.raw_pool)
        # A meeting takes a process the raw checks are done with, when one waits in the pool.
        self.era_meetings = EraMeetings(self.timeout, source=self.raw_pool.hand_over)

    def example_ended(self, status: ExampleStatus) -> None:
        """One generated example of the current test ended (`hypothesis_hooks`): count it, and remember where
        its exchange starts and, for a failing one, where it ends."""
        if self.current is None:
            return
        with self.lock:
            self.examples[self.current] = self.examples.get(self.current, 0) + 1
            if status == "failed":
                self.first_failure.setdefault(self.current, time.monotonic())
            sdk_end = SENT.mark()
            if status == "failed":
                self.sdk_failing[self.current] = (self.sdk_marks.get(self.current, sdk_end), sdk_end)
            self.sdk_marks[self.current] = sdk_end
            session = self.sessions.get(self.current_spec or "")
            if session is None:
                return
            end = session.transcript.mark()
            start = self.marks.get(self.current, end)
            if status == "failed":
                self.failing_spans[self.current] = (start, end)
            self.marks[self.current] = end
            self.shared_marks[self.current] = session.shared_mark()

    def on_target_failure(self, failure: DriverError) -> None:
        """A driver failed during a test: note where, then stop the test at once (no shrinking)."""
        nodeid = self.current
        if nodeid is None:
            return
        session = self.sessions.get(self.current_spec or "")
        mark = session.transcript.mark() if session is not None else 0
        with self.lock:
            # The example's start now: hypothesis moves the test's mark past this example once it ends.
            # No mark yet: the session was made for this very test, so its transcript starts with it.
            self.target_failures.setdefault(nodeid, (failure, self.marks.get(nodeid, 0), mark))
        raise TargetFailed(failure) from failure


_STATE_KEY = pytest.StashKey[_RunState]()
_EVIDENCE_KEY = pytest.StashKey["Evidence"]()


def _state(config: pytest.Config) -> _RunState:
    return config.stash[_STATE_KEY]


SLUG_CHARS = 96
"""A results or transcript file's name stays far below the 255 bytes a file system allows, with the
prefixes, worker and staging suffixes added to it."""


def slug(spec: str) -> str:
    """A file-name-safe form of a target spec, of bounded length: a long `cmd:` line keeps its start and
    ends in a digest of the whole spec, so two specs that share the start still get two names."""
    text = re.sub(r"[^A-Za-z0-9._-]+", "_", spec).strip("_")
    text = text if text.strip(".") else "target"  # "." and ".." name the folder itself or its parent
    if len(text) <= SLUG_CHARS:
        return text
    return text[: SLUG_CHARS - 17] + "-" + hashlib.sha256(spec.encode()).hexdigest()[:16]


def target_specs(config: pytest.Config) -> list[str]:
    given: list[str] | None = config.getoption("conformance_targets")
    return list(given) if given else list(config.getini("conformance_targets"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "records(*ids): canonical record IDs a test evidences")
    config.addinivalue_line("markers", "relies(*ids): canonical record IDs a test relies on besides those")
    config.addinivalue_line("markers", "before_the_breaker: runs before every other check (a target ending "
                                       "itself trips the breaker; these checks say so first)")
    config.addinivalue_line("markers", "after_the_rest: runs after every other check (it reads what the run "
                                       "left behind)")
    config.addinivalue_line("markers", "ends_a_process: runs last, after `after_the_rest` (it ends a process "
                                       "the other checks are done with: `RawPool.lend(spend=True)`)")
    config.addinivalue_line("markers", "launches(*arguments): lends a process of the target launched with "
                                       "these arguments, started with the session (`RawPool.prestart`)")
    config.addinivalue_line("markers", "holds_idle: holds a process idle (`RawPool.hold_idle`) for a window "
                                       "beside the checks (`RawPool.reserve_hold`)")
    register_profiles()
    profile = config.getoption("conformance_profile") or default_profile()
    example_db = config.getoption("conformance_example_db")
    load_profile(profile, Path(example_db) if example_db else None)
    results_dir = config.getoption("conformance_results_dir")
    cache = config.getoption("conformance_cache")
    set_max_frame(int(config.getoption("conformance_max_frame")))
    state = _RunState(
        profile=profile,
        results_dir=Path(results_dir) if results_dir else None,
        cache=Path(cache) if cache else None,
        timeout=float(config.getoption("conformance_timeout")),
        started=_now(),
        shard=_shard_option(config),
        shrinking=ShrinkBudget(*SHRINK_BUDGET[profile]),
    )
    if state.shard is not None:
        state.costs = _shard_costs(profile)
    state.era_meetings.advisory_as_xfail = state.results_dir is None
    config.stash[_STATE_KEY] = state
    state.unwatch = watch_examples(state.example_ended)


def _shard_option(config: pytest.Config) -> ShardIdentity | None:
    given: str | None = config.getoption("conformance_shard")
    if given is None:
        return None
    try:
        return parse_shard(given)
    except ValueError as exc:
        raise pytest.UsageError(f"--shard: {exc}") from None


def _shard_costs(profile: str) -> Costs:
    try:
        return shard_costs(profile)
    except ShardCostsError as exc:
        raise pytest.UsageError(f"--shard: {exc}") from None


def _keep_shard(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`--shard I/N`: keep this shard's share of what is selected (after `--records`)."""
    state = config.stash.get(_STATE_KEY, None)
    if state is None or state.shard is None or state.costs is None:
        return
    state.collected = [item.nodeid for item in items]
    mine = set(share_of(state.collected, state.shard, state.costs))
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in mine])
    items[:] = [item for item in items if item.nodeid in mine]


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE_KEY, None)
    if state is not None and state.unwatch is not None:
        state.unwatch()


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """What imports and collection built lives as long as the run: frozen out of the cyclic collector's
    reach, each later collection walks only what the tests make (the suite's GC time fell to a quarter)."""
    gc.collect()
    gc.freeze()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "target_spec" in metafunc.fixturenames:
        specs = target_specs(metafunc.config)
        metafunc.parametrize("target_spec", specs, ids=specs, scope="session")
    if "spec_era" in metafunc.fixturenames:
        try:
            eras = eras_of(metafunc.config.getoption("conformance_eras"))
        except KeyError as exc:
            raise pytest.UsageError(f"--era: unknown era {exc}") from None
        metafunc.parametrize("spec_era", eras, ids=[era.name for era in eras])


@pytest.fixture(scope="session")
def target(target_spec: str, request: pytest.FixtureRequest) -> Target:
    """The resolved target (npm targets are installed into the cache on first use)."""
    state = _state(request.config)
    if target_spec not in state.targets:
        try:
            resolved = resolve_target(target_spec, cache_dir=state.cache)
            renames = renames_of(request.config.getoption("conformance_arguments_map"))
            handover = handover_of(request.config)
            lateness = handover.lateness if handover is not None else resolved.lateness
            state.targets[target_spec] = dataclasses.replace(resolved, renames=renames, lateness=lateness)
        except HarnessError as exc:
            pytest.fail(f"target {target_spec!r} cannot be used: {exc}", pytrace=False)
    return state.targets[target_spec]


@pytest.fixture(scope="session")
def server(target: Target, request: pytest.FixtureRequest) -> Iterator[ServerSession]:
    """One initialized server process for the whole run; fresh-process records use `server.fresh()`."""
    state = _state(request.config)
    path = None
    if state.results_dir is not None:
        path = state.results_dir / "transcripts" / f"{slug(target.spec)}.jsonl"
    transcript = Transcript(path)
    session = ServerSession(target=target, transcript=transcript, timeout=state.timeout,
                            on_failure=state.on_target_failure, handover=handover_of(request.config))
    state.sessions[target.spec] = session
    # An xdist worker collects every test but runs those it is sent: it starts processes when asked.
    worker = "PYTEST_XDIST_WORKER" in os.environ
    items = [] if worker else request.session.items
    wanted = {name for item in items for name in getattr(item, "fixturenames", ())}
    try:
        if "fresh_runs" in wanted:
            state.fresh_runs.prestart(target)
        launched = {tuple(map(str, mark.args)) for item in items for mark in item.iter_markers("launches")}
        for arguments in sorted(launched):
            # Its start (most of a launch's cost to an interpreted server) overlaps the checks before it.
            launch = dataclasses.replace(target, command=(*target.command, *arguments))
            state.raw_pool.prestart(launch, pristine=1)
        if "raw_pool" in wanted:
            # The spare is a raw process the checks before it are done with, when there is one by then.
            session.spare_source = lambda: state.raw_pool.hand_over(target)
        elif "spare" in wanted:
            session.prestart_spare()
        if "host" in wanted:
            session.prestart_host()
        if any(item.get_closest_marker("holds_idle") is not None for item in items):
            # Last: the processes started above come up meanwhile. A run with fresh runs holds the first of
            # their processes after its sequence: one process fewer, idle as long beside the checks.
            state.raw_pool.reserve_hold(target, IDLE_HOLD, start="fresh_runs" not in wanted)
        yield session
    finally:
        session.close()
        transcript.close()


@pytest.fixture(scope="session")
def raw_pool(request: pytest.FixtureRequest) -> RawPool:
    """The run's bare processes, for records about the process itself (exit status, signals, pipes)."""
    return _state(request.config).raw_pool


@pytest.fixture(scope="session")
def fresh_runs(request: pytest.FixtureRequest) -> FreshRunner:
    """What fresh processes answer to one fixed sequence; a run that collects a test taking this fixture
    starts those processes with the session."""
    return _state(request.config).fresh_runs


@pytest.fixture(scope="session")
def era_meetings(request: pytest.FixtureRequest) -> EraMeetings:
    """What the target answers to each era's client, met once per run (one process per era, a used one of the
    raw pool when one waits there)."""
    return _state(request.config).era_meetings


@pytest.fixture
def spare(server: ServerSession) -> Spare:
    """The pooled spare process (`ServerSession.spare`); a run that collects a test taking this fixture starts
    the spare's process with the session, or, when it also collects raw-process checks, takes over a raw
    process the checks before its first use are done with (RTE-1's, ABS-10's)."""
    return server.spare


_FAILED_KEY = pytest.StashKey[bool]()


@pytest.fixture
def label_server(spare: Spare, request: pytest.FixtureRequest) -> Iterator[LabelServer]:
    """The spare process, for the checks that file many new branch labels (`LabelServer`): the shared
    process's label list, which every one of its accepted answers repeats, stays short. A check that failed
    leaves no process behind for the next one, as with `spare`."""
    with spare() as driver:
        yield LabelServer(driver)
        if request.node.stash.get(_FAILED_KEY, False):
            driver.close()


@dataclass
class Evidence:
    """What a test wants a reviewer to read beside its verdict: notes and claim observations."""

    nodeid: str
    notes: list[str] = field(default_factory=list)
    claims: list[ClaimObservation] = field(default_factory=list)
    growth: list[GrowthPoint] = field(default_factory=list)

    def checkpoint(self, calls: int, history_length: int, rss_bytes: int | None) -> None:
        """One point of the store's growth (RTE-5, ABS-11), drawn in the report against calls."""
        self.growth.append(GrowthPoint(calls=calls, history_length=history_length, rss_bytes=rss_bytes))

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def claim(self, claim: str, verdict: str, observation: str) -> None:
        entry = ClaimObservation.model_validate(
            {"claim": claim, "verdict": verdict, "observation": observation, "test": self.nodeid})
        if entry not in self.claims:
            self.claims.append(entry)


@pytest.fixture
def evidence(request: pytest.FixtureRequest) -> Evidence:
    item = request.node
    found: Evidence | None = item.stash.get(_EVIDENCE_KEY, None)
    if found is None:
        found = Evidence(item.nodeid)
        item.stash[_EVIDENCE_KEY] = found
    return found


def _spec_of(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    value = callspec.params.get("target_spec")
    return value if isinstance(value, str) else None


def _records_of(item: pytest.Item, marker: str = "records") -> list[str]:
    ids: list[str] = []
    for mark in item.iter_markers(marker):
        ids.extend(str(arg) for arg in mark.args)
    return list(dict.fromkeys(ids))


def run_order(item: pytest.Item) -> tuple[bool, bool, bool]:
    """Where a check runs: `before_the_breaker` first, then the rest, `after_the_rest`, `ends_a_process`."""
    ends = item.get_closest_marker("ends_a_process") is not None
    return (item.get_closest_marker("before_the_breaker") is None,
            ends or item.get_closest_marker("after_the_rest") is not None, ends)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With `--records` (the run's `--select`/`--deselect`), only the tests evidencing a selected record;
    with `--shard I/N`, only this shard's share of those; `before_the_breaker` checks first, then the rest,
    `after_the_rest` and, last, `ends_a_process` (every process the others started is then done with)."""
    items.sort(key=run_order)
    for item in items:
        probes_first(getattr(item, "obj", None))
    wanted: str | None = config.getoption("conformance_records")
    if wanted:
        selected = set(wanted.split(","))
        kept = [item for item in items if selected & set(_records_of(item))]
        if len(kept) < len(items):
            config.hook.pytest_deselected(items=[item for item in items if item not in kept])
            items[:] = kept
    _keep_shard(config, items)


_NOT_RUN_KEY = pytest.StashKey[str]()
_RAW_MARK_KEY = pytest.StashKey[int]()
"""Where the frames written to raw processes stood when a test began (`RawPool.frames_mark`)."""
_SDK_MARK_KEY = pytest.StashKey[int]()
"""Where the frames the official client sent stood when a test began (`SentLog.mark`)."""
_RESTARTS_KEY = pytest.StashKey[int]()
"""The shared process's restarts when a test began: one more at its end means the test met two processes."""


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """No test starts once the run is cancelled or the breaker tripped; each gets its share of shrinking."""
    cancel.check()
    state = _state(item.config)
    if state.breaker.tripped is not None and item.get_closest_marker("after_the_rest") is None:
        # A check reading what the run left behind starts no process and waits for none: it runs after the
        # breaker tripped too (a server ending itself trips it; the processes it left waiting tell why).
        item.stash[_NOT_RUN_KEY] = state.breaker.tripped
        pytest.skip(f"not run: {state.breaker.tripped}")
    state.shrinking.begin(suite_test=_spec_of(item) is not None)
    if item.get_closest_marker("ends_a_process") is not None:
        _spares_to_the_pool(state)
    item.stash[_RAW_MARK_KEY] = state.raw_pool.frames_mark()
    item.stash[_SDK_MARK_KEY] = SENT.mark()
    shared = state.sessions.get(_spec_of(item) or "")
    if shared is not None and "server" in getattr(item, "fixturenames", ()):
        shared.renew_if_spent()  # a shared process that ran out is replaced before the next check
    with state.lock:
        state.current = item.nodeid
        state.current_spec = _spec_of(item)
        state.sdk_marks[item.nodeid] = item.stash[_SDK_MARK_KEY]
        session = state.sessions.get(state.current_spec or "")
        if session is not None:
            state.marks[item.nodeid] = session.transcript.mark()
            state.shared_marks[item.nodeid] = session.shared_mark()
            item.stash[_RESTARTS_KEY] = session.restarts


def _spares_to_the_pool(state: _RunState) -> None:
    """Once the checks that end a process begin (they run last: no check needs the spare or the shared process
    after them), each session's spare and then its shared process go to the raw pool as processes to end
    (`RawPool.take_back`): the spare, taken over from a process the fresh runs were done with, and the shared
    process are still among the processes they end (the era meeting ended one the fresh runs were done
    with)."""
    for session in state.sessions.values():
        for released in (session.release_spare(), session.release_shared()):
            if released is not None:
                proc, said, initialized = released
                state.raw_pool.take_back(session.target, proc, seen=said, initialized=initialized)


_UNHELPFUL_NOTES = ("You can reproduce", "WARNING: Hypothesis has spent")


def _falsifying(exc: BaseException | None) -> str:
    """Hypothesis' notes on the minimal failing case (its arguments, or the steps of a stateful program)."""
    if exc is None:
        return ""
    notes = [n for n in getattr(exc, "__notes__", []) if not n.startswith(_UNHELPFUL_NOTES)]
    if not notes and isinstance(exc, BaseExceptionGroup):
        return "\n\n".join(filter(None, (_falsifying(e) for e in exc.exceptions)))
    return readable_example("\n".join(notes))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[
        None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call" and report.failed:
        item.stash[_FAILED_KEY] = True
    spec = _spec_of(item)
    if spec is None:
        return report
    records = _records_of(item)
    if not records:
        return report
    if cancel.requested() is not None or _NOT_RUN_KEY in item.stash:
        return report  # a cancelled or unstarted test has no outcome: its records are `not run`
    if report.when == "call" or (report.when == "setup" and not report.passed):
        _record_outcome(item, call, report, spec, records)
    return report


def _record_outcome(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport,
                    spec: str, records: list[str]) -> None:
    state = _state(item.config)
    status: str
    if report.passed:
        status = "passed"
    elif report.skipped:
        status = "skipped"
    elif report.when != "call":
        status = "error"
    else:
        exc = call.excinfo.value if call.excinfo is not None else None
        status = "error" if _is_driver_failure(exc) else "failed"
    message = _skip_reason(report) if report.skipped else ""
    counterexample = None
    failure = state.target_failures.get(item.nodeid)
    if not report.passed and not report.skipped:
        exc = call.excinfo.value if call.excinfo is not None else None
        message = _reason(call, report)
        if failure is not None and status == "error":
            message = f"target failure: {failure[0]}"[:500]
            exchange = _exchange_between(state, spec, failure[1], failure[2])
            counterexample = Counterexample(falsifying="", exchange=exchange)
        else:
            shrunk = state.shrinking.end(state.first_failure.get(item.nodeid))
            exchange = _failing_exchange(state, item.nodeid, spec)
            if not any(event.kind == "sent" for event in exchange):
                # A check on processes of its own (the process's life, its pipes): what it wrote to the last.
                raw = state.raw_pool.frames_since(item.stash.get(_RAW_MARK_KEY, state.raw_pool.frames_mark()))
                exchange = [TranscriptEvent(kind="sent", data=frame, t=0.0) for frame in raw] or exchange
            if not any(event.kind == "sent" for event in exchange):
                # A check through the official client (the SDK driver): the frames its failing example sent,
                # replayable on the wire, so its departure has a pair of its own (issue 43).
                exchange = [TranscriptEvent(kind="sent", data=frame, t=0.0)
                            for frame in _sdk_frames(state, item)] or exchange
            counterexample = Counterexample(falsifying=_falsifying(exc), minimized=shrunk, exchange=exchange)
    session = state.sessions.get(spec)
    restarted = session is not None and session.restarts > item.stash.get(_RESTARTS_KEY, 0)
    unreliable = call.excinfo is not None and isinstance(call.excinfo.value, Flaky)
    # No mark: the session began during this test (its first check), so every use of it is this test's.
    mark = state.shared_marks.get(item.nodeid, 0)
    met_two = session is not None and session.met_two_processes(mark)
    ended = met_two or (session is not None and session.ended_since(mark))
    if status == "failed" and ((restarted and unreliable) or ended):
        # The shared process ended during the failing example (between two of its calls, a new one answering
        # the rest, or while its last call's box was still coming; or, for a failure not seen again when run
        # again, anywhere in the check): what failed is the process's life (its own check says so), not this
        # check's record. An explicit example is never run again, so only the processes its calls met tell
        # this (a server exiting after a final thought).
        status = "error"
        message = ("target failure: the shared server process ended during this check"
                   + (" and a new one answered its later calls" if met_two or restarted else ""))
    state.breaker.record(status, timeout=failure is not None and isinstance(failure[0], ServerTimeout),
                         reason=message)
    evid = item.stash.get(_EVIDENCE_KEY, None)
    outcome = TestOutcome.model_validate({
        "nodeid": item.nodeid,
        "records": records,
        "relies": [r for r in _records_of(item, "relies") if r not in records],
        "status": status,
        "examples": state.examples.get(item.nodeid, 0) or (1 if status != "skipped" else 0),
        "duration": report.duration,
        "message": message,
        "contradicted": contradicted(call.excinfo.value) if status == "failed" and call.excinfo else [],
        "counterexample": counterexample,
        "transcript": f"transcripts/{slug(spec)}.jsonl" if state.results_dir else None,
        "notes": evid.notes if evid else [],
        "claims": [c.model_dump() for c in evid.claims] if evid else [],
        "growth": [p.model_dump() for p in evid.growth] if evid else [],
        "observed": observed_by(item),
        "ends_a_process": ended_by(call.excinfo.value) if status == "failed" and call.excinfo else "",
        "left_idle": idled(call.excinfo.value) if status == "failed" and call.excinfo else None,
    })
    state.outcomes.setdefault(spec, []).append(outcome)


PROCESS_FIXTURES: Final = frozenset(
    {"server", "raw_pool", "fresh_runs", "era_meetings", "spare", "label_server", "host"}
)
"""The fixtures through which a check reaches a running server."""
PACKAGE_FIXTURES: Final = frozenset({"package_dir", "package_json"})


def observed_by(item: pytest.Item) -> Observed:
    """The channel a check reads (issue 47: a departure is packaging only when read from the package's files):
    `package` for a check that takes the installed package and no server, nor the target to start one of its
    own; `process` for every other (the wire, stderr, the process's life)."""
    closure = set(getattr(item, "fixturenames", ()))
    info = getattr(item, "_fixtureinfo", None)
    direct = set(getattr(info, "argnames", ()))
    if closure & PACKAGE_FIXTURES and not closure & PROCESS_FIXTURES and "target" not in direct:
        return "package"
    return "process"


def _is_driver_failure(exc: BaseException | None) -> bool:
    if exc is None:
        return False
    if isinstance(exc, DriverError | TargetFailed):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_driver_failure(e) for e in exc.exceptions)
    return False


def _skip_reason(report: pytest.TestReport) -> str:
    """What the test gave `pytest.skip` (a skip's longrepr is (path, line, "Skipped: <reason>"))."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ").strip()[:500]
    return ""


def _reason(call: pytest.CallInfo[None], report: pytest.TestReport) -> str:
    """The exception's own message, whole, without its class or pytest's rendering of it; for an example that
    failed once and not when run again, what it failed with the first time."""
    if call.excinfo is not None:
        own = raised_message(call.excinfo.value, call.excinfo.exconly())
        if own:
            return own
    lines = report.longreprtext.strip().splitlines()
    return readable(lines[-1])[:MESSAGE_CHARS] if lines else ""


def _exchange_between(state: _RunState, spec: str, start: int, end: int) -> list[TranscriptEvent]:
    """The frames of the example during which the target failed, up to the failure."""
    session = state.sessions.get(spec)
    if session is None:
        return []
    events = session.transcript.excerpt(start, end)
    return [TranscriptEvent(kind=e.kind, data=e.data, t=e.t) for e in events]


def _sdk_frames(state: _RunState, item: pytest.Item) -> list[str]:
    """The frames the official client sent for the test's failure: since its last example the engine ran
    (hypothesis' final run of the minimal failing example, or the explicit examples, which come first), else
    its last failing example's, else all since the test began."""
    began = item.stash.get(_SDK_MARK_KEY, SENT.mark())
    spans: list[tuple[int, int | None] | None] = [
        (state.sdk_marks.get(item.nodeid, began), None), state.sdk_failing.get(item.nodeid), (began, None)]
    for span in spans:
        if span is not None:
            found = SENT.since(*span)
            if found:
                return found
    return []


def _failing_exchange(state: _RunState, nodeid: str, spec: str) -> list[TranscriptEvent]:
    """The frames of the minimal failing case: the span of its last failing example, else all since then."""
    session = state.sessions.get(spec)
    if session is None:
        return []
    span = state.failing_spans.get(nodeid)
    # No mark: the session was made for this very test (the run's first check on it), so its transcript
    # starts with it, as `on_target_failure` reads it; the mark now would hold nothing of the test's calls.
    start, end = span if span is not None else (state.marks.get(nodeid, 0), None)
    events = session.transcript.excerpt(start, end)
    if not events and span is not None:
        events = session.transcript.excerpt(span[0])
    return [TranscriptEvent(kind=e.kind, data=e.data, t=e.t) for e in events]


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash.get(_STATE_KEY, None)
    if state is None:
        return
    state.raw_pool.close()
    if state.results_dir is None:
        return
    seed = session.config.getoption("hypothesis_seed", None)
    harness = harness_identity(profile=state.profile, seed=None if seed is None else str(seed),
                               shard=state.shard)
    for spec, target in state.targets.items():
        srv = state.sessions.get(spec)
        results = RunResults(
            target=target.identity,
            harness=harness,
            server_info=info_texts(srv.server_info if srv else {}),
            protocol_version=srv.protocol_version if srv else None,
            eras=state.era_meetings.settled(spec),
            era_meets=state.era_meetings.meets(spec),
            started=state.started,
            finished=_now(),
            processes_started=processes_started(),
            calls_made=srv.transcript.count("sent") if srv else 0,
            tests=state.outcomes.get(spec, []),
            stopped=state.breaker.tripped,
            collected=state.collected,
        )
        state.results_dir.mkdir(parents=True, exist_ok=True)
        create_file(state.results_dir / f"results-{slug(spec)}.json", model_json(results, indent=2),
                    replace=True)
