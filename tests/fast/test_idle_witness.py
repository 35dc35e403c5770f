"""Output a server writes on a clock, not per call, gives one verdict on every run (gate/idle_watch.py, issue
43).

Two classes, both shown with tests/servers/heartbeat.py. ABS-10's idle check saw a 2.5 s heartbeat only when
the run's pooled processes happened to idle that long, and its witness (three calls) never idled at all: the
departure was new under one seed and its entry stale under the next. A 1 s heartbeat's lines fell into
whichever banner wait or box call its beat met, so every witness pinning stderr (CMP-4, RTE-10, LOOP-A) was
"changed" from run to run. The idle witness holds a fresh process idle a fixed while: what it did first is
ABS-10's `idle` step, and each line it wrote there is a clock line, kept out of every other pinned stderr.
"""

from __future__ import annotations

import functools
import json
import shlex
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.catalog.records import default_catalog
from conformance.core.idle import IDLE_HOLD
from conformance.drivers import process
from conformance.gate.idle_watch import IDLE_STEP, QUIET, clock_key, without_clock_lines
from conformance.gate.pinned import NOT_CONFIRMED, PinnedReplay, settle_unlisted
from conformance.gate.signatures import RecordSignature, witness_signatures
from conformance.report.model import Evidence, RecordVerdict, Report, TestRef, WitnessAnswer
from conformance.suite.contradiction import Contradiction, idled, while_idle
from conformance.suite.rawproc import RawPool
from conformance.suite.rawproc import without_clock_lines as without_idle_lines
from conformance.targets.specs import resolve_target
from tests.servers import command

STDERR_RECORDS = ["CMP-4", "RTE-10", "LOOP-A", "CMP-5"]
"""Records whose witnesses pin stderr: the banner (CMP-4, RTE-10, LOOP-A) or boxes (LOOP-A, CMP-5)."""
HOLD = 4.0
"""The idle witness's hold in these tests: past a 2.5 s heartbeat's period, so the step sees it every time."""
T = TypeVar("T")


def _heartbeat(period_ms: int, *flags: str) -> str:
    return "cmd:" + shlex.join(command("heartbeat", str(period_ms), *flags))


def _signed(spec: str, records: list[str]) -> dict[str, RecordSignature]:
    return witness_signatures(spec, records, timeout=20, idle=HOLD)


@functools.cache
def _reference() -> dict[str, RecordSignature]:
    """The reference's signatures of every record these tests sign, on one witness process (its witness
    answers are the original's; a record signs alike whatever is signed beside it): nothing between calls."""
    return _signed("reference", [*STDERR_RECORDS, "ABS-10"])


def _side_by_side(*made: Callable[[], T]) -> list[T]:
    """Each of `made` on a thread of its own, their results in order: runs of separate processes that would
    otherwise wait out their holds one after another."""
    with ThreadPoolExecutor(len(made), thread_name_prefix="idle-test") as pool:
        return [future.result() for future in [pool.submit(one) for one in made]]


@settings(max_examples=1, deadline=None, suppress_health_check=list(HealthCheck))
@given(periods=st.permutations([20, 60, 300]), stamped=st.lists(st.booleans(), min_size=3, max_size=3))
def test_a_timer_writing_stderr_signs_as_the_original_on_every_process(periods: list[int],
                                                                       stamped: list[bool]) -> None:
    """Heartbeat lines, stamped with the time or not, enter no pinned stderr: the banner and the boxes sign as
    the original's whatever the period (they differed with every count of lines the beats left). Every period
    is signed, side by side: each signing mostly waits on its processes and the idle witness's hold."""
    specs = [_heartbeat(period, *(["--stamped"] if stamp else []))
             for period, stamp in zip(periods, stamped, strict=True)]
    *signings, reference = _side_by_side(*(functools.partial(_signed, spec, STDERR_RECORDS)
                                           for spec in specs), _reference)
    for spec, signed in zip(specs, signings, strict=True):
        for rid in STDERR_RECORDS:
            assert signed[rid].signature == reference[rid].signature, (spec, rid, signed[rid].witness,
                                                                       reference[rid].witness)


def test_a_box_changed_beside_a_timer_still_departs() -> None:
    """A per-call change of stderr (every box drawn in ASCII) is kept whole, the timer's lines taken out."""
    signed = _signed(_heartbeat(20, "--ascii-box"), ["CMP-5"])
    assert signed["CMP-5"].signature != _reference()["CMP-5"].signature
    shown = " ".join(w.answer for w in signed["CMP-5"].witness)
    assert "+---" in shown and "heartbeat" not in shown, shown


def test_the_idle_step_sees_a_timer_slower_than_the_searchs_waits_on_every_run() -> None:
    """A 2.5 s heartbeat, which the suite's 1.5 s idle check misses and its pooled processes meet by chance:
    ABS-10's witness departs from the original's, alike on two runs."""
    first, again, original = _side_by_side(*(lambda: _signed(_heartbeat(2500), ["ABS-10"])["ABS-10"],) * 2,
                                           lambda: _reference()["ABS-10"])
    assert first.signature == again.signature != original.signature
    idle = {w.step: w.answer for w in first.witness}[IDLE_STEP]
    assert idle == '{"idle":"wrote","stderr":"heartbeat: alive"}', first.witness
    assert {w.step: w.answer for w in original.witness}[IDLE_STEP] == '{"idle":"quiet"}'
    assert QUIET == {"idle": "quiet"}


def test_the_original_answers_its_idle_step_quiet_with_no_process_held_idle() -> None:
    """The original (`clockless`: it does nothing between calls) signs ABS-10 as its process held idle the
    whole while answers, on its one witness process: no red run departing from ABS-10 waits out the hold."""
    before = process.processes_started()
    known = witness_signatures("reference", ["ABS-10"], timeout=20, idle=HOLD, stateless=True,
                               refusals_carry=False, clockless=True)
    assert process.processes_started() - before == 1
    held = _reference()
    assert known["ABS-10"].signature == held["ABS-10"].signature
    assert known["ABS-10"].witness == held["ABS-10"].witness
    assert {w.step: w.answer for w in known["ABS-10"].witness}[IDLE_STEP] == '{"idle":"quiet"}'


def test_the_idle_step_sees_a_process_that_ends_itself_when_idle() -> None:
    """An idle timeout (tests/servers/idle_exit.py: ended 2 s after its last call, writing nothing) is the
    idle step's end, alike on two runs; the original waits."""
    spec = "cmd:" + shlex.join(command("idle_exit", "2000"))
    first, again = _side_by_side(*(lambda: _signed(spec, ["ABS-10"])["ABS-10"],) * 2)
    assert first.signature == again.signature != _reference()["ABS-10"].signature
    assert {w.step: w.answer for w in first.witness}[IDLE_STEP] == '{"idle":"ended","exit":0}', first.witness


@given(beat=st.sampled_from(["heartbeat: alive", "[12:03:04.512] still here", "tick 2026-12-07T10:00:00Z"]),
       box=st.lists(st.sampled_from(["┌───┐", "│ 💭 Thought 1/3 │", "└───┘", "Error processing thought: x"]),
                    min_size=1, max_size=5))
def test_only_lines_seen_idle_leave_a_pinned_stderr(beat: str, box: list[str]) -> None:
    """Clock lines go wherever they fall (their time as a placeholder); every other line stays in order."""
    later = beat.replace("12:03:04.512", "23:59:01.000").replace("2026-12-07T10:00", "2027-01-01T00:00")
    written = "\n".join([later, *box[:1], beat, *box[1:], ""])
    assert without_clock_lines(written, {clock_key(beat)}) == "\n".join([*box, ""])
    assert without_clock_lines(written, set()) == written


CANONICAL = {r.id: r.id for r in default_catalog().records}
IDLE_WITNESS_ANSWERS = [WitnessAnswer(step="last", answer='{"result":{"isError":false}}'),
                        WitnessAnswer(step=IDLE_STEP, answer='{"idle":"quiet"}')]
WATCHED = Evidence(reproduced=False, original_spec="npm:0.6.2", own_failure=True,
                   why="its checks read the installed files or watch the process and kept no call sequence")
SPOKE = ("ABS-10 contradicted: a process left waiting for a call wrote “heartbeat: alive” to stderr within "
         "31.0 s of its last call, where the original writes nothing between calls")


def _abs10(left_idle: list[float | None], witness: list[WitnessAnswer]) -> RecordVerdict:
    tests = [TestRef(nodeid=f"t{i}", status="failed", examples=1, message=SPOKE, left_idle=s)
             for i, s in enumerate(left_idle)]
    return RecordVerdict(id="ABS-10", kind="abs", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict="deviates", evidence_before="absent", evidence_after="observed",
                         signature="0" * 64, witness=witness, evidence=WATCHED, reason=SPOKE, tests=tests)


@given(seconds=st.floats(min_value=0.0, max_value=3600.0, allow_nan=False))
def test_an_idle_departure_its_idle_witness_does_not_show_is_seen_once(seconds: float) -> None:
    """A timer slower than the witness's hold (met by a check that idled longer, on some runs only) is seen
    once; the same departure that its idle witness shows, or told by any other failure, stays new."""
    _, once = settle_unlisted([_abs10([seconds], IDLE_WITNESS_ANSWERS)],
                              PinnedReplay(own={"ABS-10": frozenset()}), CANONICAL)
    assert set(once) == {"ABS-10"} and once["ABS-10"].startswith(NOT_CONFIRMED), once
    for verdict, own in (
        (_abs10([seconds], IDLE_WITNESS_ANSWERS), frozenset({f"step {IDLE_STEP}"})),  # the witness shows it
        (_abs10([seconds, None], IDLE_WITNESS_ANSWERS), frozenset()),  # another check failed otherwise
        (_abs10([seconds], IDLE_WITNESS_ANSWERS[:1]), frozenset()),  # signed without the idle step
    ):
        _, once = settle_unlisted([verdict], PinnedReplay(own={"ABS-10": own}), CANONICAL)
        assert once == {}, (verdict.tests, own)


@given(seconds=st.floats(min_value=0.0, max_value=3600.0, allow_nan=False), grouped=st.booleans())
def test_a_failure_read_while_idle_carries_its_kind(seconds: float, grouped: bool) -> None:
    """The mark `while_idle` sets is what the plugin writes as a check's `left_idle`; a failure outside it
    carries none."""
    with pytest.raises(AssertionError) as raised, while_idle(seconds):
        raise Contradiction("ABS-10", "wrote")
    exc: BaseException = raised.value
    if grouped:
        exc = ExceptionGroup("checks", [ValueError("other"), raised.value])
    assert idled(exc) == round(seconds, 3)
    assert idled(Contradiction("ABS-10", "wrote")) is None


def _idle_after_one_check(spec: str, clock: list[frozenset[bytes]] | None = None,
                          ) -> tuple[list[tuple[float, bytes]], list[tuple[float, bytes]], float]:
    """A pooled process a check initialized and handed back: what the pool saw it write at once, what after
    `hold_idle(IDLE_HOLD)`, and how long the hold took (`clock` gets the pool's clock lines)."""
    pool = RawPool(timeout=20.0)
    target = resolve_target(spec)
    try:
        with pool.lend(target) as raw:
            raw.initialize()
            raw.stderr_now(wait=raw.banner_wait())
        at_once = pool.spoke_waiting(target)
        started = time.monotonic()
        pool.hold_idle(target, IDLE_HOLD)
        if clock is not None:
            clock.append(pool.clock_lines(target))
        return at_once, pool.spoke_waiting(target), time.monotonic() - started
    finally:
        pool.close()


def test_the_idle_check_waits_until_a_pooled_process_idled_as_long_as_the_witness_holds() -> None:
    """A 2.5 s heartbeat is not yet written when the check is done with its process (a dev run's pool often
    idles less): the hold waits for it, and ends at its line, not at the hold's end; a quiet server (the
    reference) is held the whole while and wrote nothing."""
    timer, quiet = _side_by_side(lambda: _idle_after_one_check(_heartbeat(2500)),
                                 lambda: _idle_after_one_check("reference"))
    at_once, held, took = timer
    assert not at_once and held and b"heartbeat: alive" in held[0][1], (at_once, held)
    assert took < IDLE_HOLD, took
    at_once, held, took = quiet
    assert not at_once and not held and took >= IDLE_HOLD - 0.5, (held, took)


def test_a_line_written_idle_is_no_ends_or_signals_stderr() -> None:
    """What a check reads after a process's end or a signal (RTE-10: "SIGINT sent: stderr “heartbeat: alive”,
    where the original writes nothing", new under one seed, its entry stale under the next) leaves out the
    lines the pool's processes wrote while idle, stamped at another time too; the fork's own line stays."""
    clock: list[frozenset[bytes]] = []
    _idle_after_one_check(_heartbeat(300, "--stamped"), clock)
    said = b"[23:59:59.999] heartbeat: alive\nstate cleared on SIGHUP\n[00:00:00.001] heartbeat: alive\n"
    assert without_idle_lines(said, clock[0]) == b"state cleared on SIGHUP\n", clock
    assert without_idle_lines(b"heartbeat: alive\n", clock[0]) == b"heartbeat: alive\n"  # not stamped so


def test_a_report_written_before_left_idle_still_reads() -> None:
    """Format /5 (an atlas target's report, written before the field) reads as /6 does, no check idle."""
    path = Path(__file__).resolve().parents[2] / "reports/atlas/targets/npm-2025.7.1/report.json"
    report = Report.model_validate(json.loads(path.read_text(encoding="utf-8")))
    assert report.format == "seqthink-conformance-report/5"
    assert all(t.left_idle is None for rv in report.records for t in rv.tests)
