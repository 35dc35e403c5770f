"""Runs that several end-to-end tests check, each made once per session and handed to every test that
checks it. A test whose scenario is its own (another target, baseline, signal, deadline) makes its own run;
a module whose runs are independent of each other makes them ahead, two at a time.

The session's runs start in the background with the first end-to-end test, one at a time, so they overlap
the tests before those that check them. The session's ci run of the reference is also the conformance
suite against the reference: when it is selected, the suite's own `[reference]` tests are not run a second
time in this process (the run's gate fails if any of them fails; tests/e2e/test_cli.py checks it).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pytest

import conformance.suite
from tests.cli import GATE_SEED, GATE_SUITE, WRITTEN, CountedRun, Ran, cli, fake
from tests.report_links import broken_links

SUITE = Path(conformance.suite.__file__).resolve().parent
SHARED = ("reference_ci", "hostile_gate")
"""The session's runs, in the order they are started."""
T = TypeVar("T")
PROBE = '''"""First on the PYTHONPATH of one run: each of its Python processes imports this at start, and
those running the reference server append their pid to the run's log: the servers count their starts."""

import os
import sys

if sys.orig_argv[1:3] == ["-m", "reference_server"]:
    with open({log!r}, "a", encoding="utf-8") as starts:
        starts.write(f"{{os.getpid()}}\\n")
'''
"""A sitecustomize module, written per run: PYTHONPATH reaches every server, even those started with an
exact environment (the colour rows keep PYTHONPATH), where a variable of our own would not."""


def _uses(item: pytest.Item, fixture: str) -> bool:
    return fixture in getattr(item, "fixturenames", ())


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """After `-m`/`-k` chose: when a selected test checks the session's ci run of the reference, the suite's
    `[reference]` tests are that run's, not made again here."""
    if not any(_uses(item, "reference_ci") for item in items):
        return
    again = [
        item for item in items
        if isinstance(item, pytest.Function) and item.path.resolve().is_relative_to(SUITE)
        and hasattr(item, "callspec") and item.callspec.params.get("target_spec") == "reference"
    ]
    if again:
        config.hook.pytest_deselected(items=again)
        kept = set(map(id, items)) - set(map(id, again))
        items[:] = [item for item in items if id(item) in kept]


def reference_seed(config: pytest.Config) -> str:
    """`--hypothesis-seed` when given, else a new one per session, as the suite run in-process would draw:
    the report records it, so a failure replays with `--seed`."""
    given = config.getoption("hypothesis_seed", None)
    return str(given) if given is not None else str(random.randrange(2**32))


def make_reference_ci(folder: Path, seed: str) -> CountedRun:
    """`run --target reference --profile ci`, as CI runs it, with every reference server start counted."""
    probe, log = folder / "probe", folder / "starts.log"
    probe.mkdir()
    (probe / "sitecustomize.py").write_text(PROBE.format(log=str(log)), encoding="utf-8")
    ran = cli("run", "--target", "reference", "--profile", "ci", "--seed", seed, out=folder / "out",
              env={"PYTHONPATH": str(probe)})
    starts = log.read_text(encoding="utf-8").split() if log.is_file() else []
    return CountedRun(ran, "ci", seed, starts)


def make_hostile_gate(folder: Path) -> Ran:
    return cli("run", "--target", fake("hostile"), "--profile", "dev", "--seed", GATE_SEED,
               "--suite", GATE_SUITE, out=folder / "out")


class SharedRuns:
    """The session's runs, made one after the other on a thread of their own, each at most once."""

    def __init__(self, config: pytest.Config, factory: pytest.TempPathFactory) -> None:
        self.config, self.factory = config, factory
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="e2e-shared")
        self.made: dict[str, Future[CountedRun] | Future[Ran]] = {}

    def start(self, name: str) -> Future[CountedRun] | Future[Ran]:
        if name not in self.made:
            folder = self.factory.mktemp(name.replace("_", "-"))
            if name == "reference_ci":
                self.made[name] = self.pool.submit(make_reference_ci, folder, reference_seed(self.config))
            else:
                self.made[name] = self.pool.submit(make_hostile_gate, folder)
        return self.made[name]

    def result(self, name: str, kind: type[T]) -> T:
        found = self.start(name).result()
        assert isinstance(found, kind), type(found)
        return found


@pytest.fixture(scope="session", autouse=True)
def shared_runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedRuns]:
    """Every end-to-end test asks for this first, so the runs a selected test checks start with the first of
    them; each test waits for the run it checks. An xdist worker, which collects every test but runs those
    it is sent, starts a run only when a test asks for it. Runs not started by the session's end are
    dropped."""
    runs = SharedRuns(request.config, tmp_path_factory)
    if "PYTEST_XDIST_WORKER" not in os.environ:
        for name in SHARED:
            if any(_uses(item, name) for item in request.session.items):
                runs.start(name)
    try:
        yield runs
    finally:
        runs.pool.shutdown(wait=True, cancel_futures=True)
    # Last of the session (this fixture is set up first): the runs finished after the last test's check.
    broken = unchecked_reports()
    assert broken == [], "report links to files that were not written:\n" + "\n".join(broken[:30])


_CHECKED: set[Path] = set()


def _uploaded_by_the_action(link: str) -> bool:
    """A page of the GitHub Action's uploaded evidence (tests/e2e/test_action.py's `artifacts/`): a copy of
    the report whose transcripts the job leaves out when asked (`transcripts: none`); the report the
    action's run wrote is checked where it was written."""
    parts = Path(link.split(": ", 1)[0]).parts
    return "artifacts" in parts or "seqthink-evidence" in parts  # its trimmed copy (transcripts: none)


def unchecked_reports() -> list[str]:
    """The broken links of every report in the `--out` folders `cli` ran into since the last call."""
    broken: list[str] = []
    for folder in list(WRITTEN):
        if folder not in _CHECKED:
            _CHECKED.add(folder)
            broken += [f"{folder}/{link}" for link in broken_links(folder)]
    return broken


@pytest.fixture(autouse=True)
def reports_link_their_files(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each end-to-end test, every report it (or a run it waited for) wrote links only files that exist:
    those in its tmp_path and in each `--out` folder `cli` ran into and no test has checked yet. A
    failure names the test that wrote the report, or the first to wait for it."""
    folder: Path | None = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    broken = unchecked_reports()
    if folder is not None:
        broken += [f"{folder}/{link}" for link in broken_links(folder) if not _uploaded_by_the_action(link)]
    assert broken == [], "report links to files that were not written:\n" + "\n".join(broken[:30])


@pytest.fixture(scope="session")
def reference_ci(shared_runs: SharedRuns) -> CountedRun:
    """`run --target reference --profile ci`, as CI runs it: its gate and report (test_cli.py), the server
    processes it started (test_processes.py), and the conformance suite against the reference."""
    return shared_runs.result("reference_ci", CountedRun)


@pytest.fixture(scope="session")
def hostile_gate(shared_runs: SharedRuns) -> Ran:
    """The stand-in gate suite against the fake server whose every string is `<script>alert(1)</script>`:
    the gate, escaping, baselines, parallel workers and diff (test_cli.py) and its page in a browser
    (test_browser.py)."""
    return shared_runs.result("hostile_gate", Ran)


@pytest.fixture(scope="session")
def ahead() -> Iterator[ThreadPoolExecutor]:
    """Two runs at a time, for modules whose runs do not depend on each other: a run spends much of its wall
    time waiting on a server, a timeout or a budget, so a second one fills the other core. Runs still queued
    when the session ends are dropped."""
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="e2e-run")
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
