"""A process slow to end itself or to finish a long render is waited for, not called deviating (issue 43): the
exits RTE-10's checks await and the 1 MiB box RTE-9/a1's check reads end their waits on the event, within a
bound set by the process's own pace in the run; past a bound its pace cut short it is slow, said as such. A
process that never ends costs that bound once a run for each end, not once per check and witness (issue 46).

The cases here have servers 2 s late, a render some 5 s long: each wait ends on its event, so they cost what
the server takes. The same past the 5 s the checks once waited (6 s late, a render over 13 s), evidence that
the bound is the call timeout at least, are tests/e2e/test_slow_ends.py, in the evidence tier."""

from __future__ import annotations

import shlex
import signal
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.meetings import meet
from conformance.core.eras import LEGACY
from conformance.drivers.ending import (
    END_LIMIT,
    END_PACE,
    KNOWN_SHARE,
    STDIN_END,
    Outlived,
    end_bound,
    known_bound,
    pace_after,
    paced_end,
    signal_end,
    too_slow,
)
from conformance.drivers.errors import TooSlow
from conformance.gate.signatures import witness_signatures
from conformance.suite.rawproc import RawServer
from conformance.suite.spec_checks import SpecDeparture, judge
from conformance.targets.specs import Target, resolve_target
from tests.servers import command, suite_outcomes

TIMEOUT: Final = 10.0
"""The call timeout of these cases (the default): a start-up on a loaded machine stays within it (at 4 s,
four reference servers starting under a load of 30 did not)."""
LATE: Final = 2
"""Seconds the slow servers take to end and a relay holds their banner: well within `TIMEOUT`."""
NEVER: Final = "600"
"""Seconds the never-ending server takes: past every bound."""
ENDS: Final = ["test_end_of_stdin_ends_the_process_quietly", "test_broken_stdout_exits_with_status_1",
               "test_terminating_signals_are_not_handled"]
BANNER: Final = b"Sequential Thinking MCP Server running on stdio\n"


RENDERED: Final = "test_huge_thought_rendered_whole"
SUITES: Final = {
    "ending_late": ("test_lifecycle.py", ENDS, "cmd:" + shlex.join(command("slow_exit", str(LATE)))),
    "rendering_slowly": ("test_render.py", [RENDERED], "cmd:" + shlex.join([
        *command("late_stderr", "--delay-ms", "400,400", "--piece-bytes", str(1 << 20), "--"),
        sys.executable, "-m", "reference_server"])),
}
"""The suite runs the tests read (file, checks, target): a server ending 2 s late; a 1 MiB thought's box
relayed in 1 MiB pieces 0.4 s late each."""
Outcomes = dict[str, tuple[str, str]]


@pytest.fixture(scope="module")
def suites(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[dict[str, Future[Outcomes]]]:
    """The suite runs the module's selected tests read, started together with the first of them: each mostly
    waits on its slow server, so they wait side by side (and beside the tests between), not in turn."""
    wanted = {name for item in request.session.items
              if isinstance(item, pytest.Function) and item.module is request.module
              for name in item.fixturenames if name in SUITES}
    pool = ThreadPoolExecutor(len(SUITES), thread_name_prefix="slow-ends-suite")
    try:
        yield {name: pool.submit(suite_outcomes, suite, list(checks), target, tmp_path_factory.mktemp(name),
                                 "--call-timeout", f"{TIMEOUT:g}")
               for name, (suite, checks, target) in SUITES.items() if name in wanted}
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture
def ending_late(suites: dict[str, Future[Outcomes]]) -> Outcomes:
    return suites["ending_late"].result()


@pytest.fixture
def rendering_slowly(suites: dict[str, Future[Outcomes]]) -> Outcomes:
    return suites["rendering_slowly"].result()


def test_a_process_ending_late_is_waited_for(ending_late: Outcomes) -> None:
    """Ending 2 s after stdin closes, after its stdout broke and after each terminating signal, each with the
    original's status: every RTE-10 check holds (the four signals awaited together: some 2 s, not 8)."""
    seen = ending_late
    assert sorted(seen) == sorted(ENDS), seen
    assert all(outcome == "passed" for outcome, _ in seen.values()), seen


def test_a_banner_arriving_late_is_waited_for() -> None:
    """A relay holding the banner until 2 s after the first answer: a check reading it before it ends the
    process (`RawServer.banner_wait`, as RTE-10's do) finds it whole."""
    relay = command("late_stderr", "--banner-ms", str(LATE * 1000), "--")
    target = resolve_target("cmd:" + shlex.join([*relay, sys.executable, "-m", "reference_server"]))
    with RawServer(target, sandbox={}, timeout=30.0) as raw:
        raw.initialize()
        raw.timeout = TIMEOUT
        said = raw.stderr_now(wait=raw.banner_wait())
    assert said == BANNER, said


def test_a_render_arriving_slowly_is_read_whole(rendering_slowly: Outcomes) -> None:
    """A 1 MiB thought's box (some 10 MB) relayed after its answer in 1 MiB pieces, each 0.4 s late (some
    5 s), is read to its end: the render holds."""
    seen = rendering_slowly
    assert seen.get(RENDERED, ("missing", ""))[0] == "passed", seen


def test_a_process_whose_pace_outruns_the_bound_is_too_slow() -> None:
    """A process whose calls take 0.5 s, under a 0.5 s call timeout, still running at the bound once stdin
    closed: `TooSlow` (slow, not a departure), not an exit status to judge."""
    target = resolve_target("cmd:" + shlex.join(command("slow_exit", NEVER, "0.5")))
    with RawServer(target, sandbox={}, timeout=30.0) as raw:
        raw.initialize()
        raw.request("tools/call", {"name": "sequentialthinking", "arguments": {
            "thought": "slow", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}})
        raw.timeout = 0.5
        raw.close_stdin()
        try:
            raw.wait_for_end("stdin ended")
        except TooSlow as slow:
            assert "too slow" in str(slow) and "stdin ended" in str(slow), slow
        else:
            raise AssertionError(f"no TooSlow: a pace of {raw.pace:.2f} s against a 0.5 s call timeout")


def test_a_witness_sees_a_late_end_of_input() -> None:
    """BAP-5's witness ends the process's stdin and signs its exit (`WireDriver.end_input_paced`, as the spec
    records' meeting does): a process ending 2 s later with status 0 is signed as exiting with 0, as the
    original is."""
    target = "cmd:" + shlex.join(command("slow_exit", str(LATE)))
    signed = witness_signatures(target, ["BAP-5"], timeout=TIMEOUT)["BAP-5"]
    answers = {answer.step: answer.answer for answer in signed.witness}
    assert answers.get("exit-on-stdin-close") == '{"exit":0}', answers


def test_a_meeting_sees_a_late_end_of_input() -> None:
    """The spec records' meeting (SPEC-22) ends the process's stdin as BAP-5's witness does: a process ending
    2 s later with status 0 is seen exiting with 0, not slow (a fixed 5 s wait once said it was still running
    for a server a few seconds later than this one)."""
    target = resolve_target("cmd:" + shlex.join(command("slow_exit", str(LATE))))
    meeting = meet(target, LEGACY, timeout=TIMEOUT)
    assert meeting.failure is None, meeting.failure
    assert (meeting.end_of_input, meeting.end_slow) == (0, False), (meeting.end_of_input, meeting.end_slow)


@contextmanager
def _never_ending(target: Target) -> Iterator[tuple[RawServer, RawServer]]:
    """Two initialized processes of a server that never ends, at a 1 s call timeout: short whole bounds."""
    with RawServer(target, sandbox={}, timeout=30.0) as one, \
            RawServer(target, sandbox={}, timeout=30.0) as two:
        for raw in (one, two):
            raw.initialize()
            raw.timeout = 1.0
        yield one, two


def test_an_end_outlived_once_is_waited_for_briefly_after() -> None:
    """A server that never ends once stdin closes: the first wait runs its whole bound and teaches the run;
    the later ones (another raw process, the spec meeting, BAP-5's witness) wait `known_bound`, still see it
    running, and say the whole bound the first one outlived. Each waited the whole bound before (a fork
    never ending on stdin's end paid 10 s at four places a run)."""
    target = resolve_target("cmd:" + shlex.join(command("slow_exit", NEVER)))
    with _never_ending(target) as (first, then):
        first.close_stdin()
        then.close_stdin()
        whole = first.wait_for_end("stdin ended")
        assert whole == (None, end_bound(1.0, first.pace)), whole
        assert first.outlived() == whole[1] == then.outlived()
        brief = then.wait_for_end("stdin ended")
        assert brief == (None, known_bound(1.0, then.pace)) and brief[1] < whole[1], (brief, whole)
    meeting = meet(target, LEGACY, timeout=TIMEOUT)
    assert meeting.failure is None, meeting.failure
    assert meeting.end_of_input is None, meeting.end_of_input
    assert meeting.end_outlived == whole[1], meeting.end_outlived
    try:
        judge("SPEC-22", replace(meeting, negotiated="2026-07-28"))  # the revision SPEC-22 binds
    except SpecDeparture as departure:
        assert f"another process of it was still running {whole[1]:g} s" in str(departure), departure
    else:
        raise AssertionError("SPEC-22 held on a process still running after its stdin closed")
    signed = witness_signatures(target, ["BAP-5"], timeout=TIMEOUT)["BAP-5"]
    answers = {answer.step: answer.answer for answer in signed.witness}
    assert answers.get("exit-on-stdin-close") == '{"exit":"still running"}', answers


def test_ends_signalled_together_are_awaited_together() -> None:
    """Two processes trapping their signals, signalled at once: the second's wait is counted from the
    signal, so it ends as the first's does, not a whole bound later (a server trapping all four terminating
    signals cost RTE-10's check four bounds in a row)."""
    with _never_ending(resolve_target("cmd:" + shlex.join(command("slow_exit", NEVER)))) as (one, two):
        signalled = time.monotonic()
        one.signal(signal.SIGTERM)
        two.signal(signal.SIGHUP)
        first = one.wait_for_end("SIGTERM sent", end=signal_end("SIGTERM"), since=signalled)
        began = time.monotonic()
        second = two.wait_for_end("SIGHUP sent", end=signal_end("SIGHUP"), since=signalled)
        assert first[0] is None and second[0] is None, (first, second)
        assert time.monotonic() - began < 0.5, "the second wait ran its own bound after the first's"
        assert two.outlived(signal_end("SIGHUP")) == second[1]


@given(timeout=st.floats(0.1, 120), pace=st.floats(0, 600))
def test_the_bound_follows_the_pace_within_its_limits(timeout: float, pace: float) -> None:
    bound = end_bound(timeout, pace)
    assert timeout <= bound <= END_LIMIT * timeout
    assert bound >= min(END_PACE * pace, END_LIMIT * timeout)
    assert too_slow(timeout, pace) == (END_PACE * pace > bound)
    assert end_bound(timeout, pace * 2) >= bound
    known = known_bound(timeout, pace)
    assert min(KNOWN_SHARE * timeout, bound) <= known <= bound
    assert known >= min(END_PACE * pace, bound)


WAITS = st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from([STDIN_END, signal_end("SIGTERM")]),
                           st.one_of(st.none(), st.integers(-15, 1)), st.booleans()), max_size=8)


@given(waits=WAITS, timeout=st.floats(0.5, 30), pace=st.floats(0, 2))
def test_only_a_whole_bound_outlived_shortens_later_waits(
    waits: list[tuple[str, str, int | None, bool]], timeout: float, pace: float
) -> None:
    """A command's end is waited for briefly after, and only after, a process of it was still running a whole
    bound after that end: an exit or a shorter wait teaches nothing, nor one of another command or end."""
    outlived = Outlived()
    for name, end, status, whole in waits:
        waited = end_bound(timeout, pace) if whole else known_bound(timeout, pace) / 2
        outlived.note((name,), end, status=status, waited=waited, timeout=timeout, pace=pace)
    for name in ("a", "b"):
        for end in (STDIN_END, signal_end("SIGTERM")):
            taught = any(n == name and e == end and s is None and w for n, e, s, w in waits)
            expected = known_bound(timeout, pace) if taught else end_bound(timeout, pace)
            assert outlived.bound((name,), end, timeout, pace) == expected
            assert (outlived.outlived((name,), end) is not None) == taught


@given(round_trips=st.lists(st.floats(0, 60), max_size=8))
def test_the_pace_is_the_slowest_round_trip_after_the_first(round_trips: list[float]) -> None:
    """One pace rule for both drivers: the first request also waited for the process to start."""
    pace = 0.0
    for nth, round_trip in enumerate(round_trips, start=1):
        pace = pace_after(pace, nth, round_trip)
    assert pace == max(round_trips[1:], default=0.0)


@given(timeout=st.floats(0.1, 30), pace=st.floats(0, 5), status=st.one_of(st.none(), st.integers(-15, 1)),
       what=st.one_of(st.none(), st.just("stdin ended")), outlived=st.booleans())
def test_a_paced_end_waits_its_bound_and_teaches_only_a_whole_one(
    timeout: float, pace: float, status: int | None, what: str | None, outlived: bool
) -> None:
    """The one wait both drivers make for an end: the bound the run's learning gives, then, said `what`,
    a pace that cut the bound short is `TooSlow` and teaches nothing; otherwise a process still running after
    a whole bound teaches the run."""
    ends = Outlived()
    if outlived:
        ends.note(("c",), STDIN_END, status=None, waited=end_bound(timeout, pace), timeout=timeout, pace=pace)
    due = known_bound(timeout, pace) if outlived else end_bound(timeout, pace)
    asked: list[float] = []

    def wait(bound: float) -> int | None:
        asked.append(bound)
        return status

    slow = status is None and what is not None and too_slow(timeout, pace)
    try:
        seen = paced_end(ends, ("c",), STDIN_END, timeout, pace, wait, what)
    except TooSlow as raised:
        assert slow and "too slow" in str(raised) and str(raised).startswith(f"{what}:"), raised
        assert (ends.outlived(("c",), STDIN_END) is not None) == outlived
    else:
        assert not slow and seen == (status, due), seen
        taught = outlived or (status is None and due >= end_bound(timeout, pace))
        assert (ends.outlived(("c",), STDIN_END) is not None) == taught
    assert asked == [due]
