"""A process slow to end itself or to finish a long render is waited for, not called deviating (issue 43): the
exits RTE-10's checks await and the 1 MiB box RTE-9/a1's check reads end their waits on the event, within a
bound set by the process's own pace in the run; past a bound its pace cut short it is slow, said as such."""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.meetings import meet
from conformance.core.eras import LEGACY
from conformance.drivers.ending import END_LIMIT, END_PACE, end_bound, too_slow
from conformance.drivers.errors import TooSlow
from conformance.gate.signatures import witness_signatures
from conformance.suite.rawproc import RawServer
from conformance.targets.specs import resolve_target
from tests.servers import command

ROOT = Path(__file__).resolve().parents[2]
LATE: Final = 6
"""Seconds the slow server takes to end: past the 5 s the checks once waited, within the call timeout."""


def outcomes(suite_file: str, tests: list[str], target: str, tmp: Path) -> dict[str, tuple[str, str]]:
    """The named checks of one suite file run against `target`: each one's outcome and failure message."""
    junit = tmp / "junit.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", f"conformance/suite/{suite_file}", "-q", "-p", "no:cacheprovider",
         "-k", " or ".join(tests), f"--basetemp={tmp / 'pytest'}", f"--junitxml={junit}", "--target", target],
        cwd=ROOT, capture_output=True, timeout=600, check=False)
    seen: dict[str, tuple[str, str]] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        outcome = "failed" if failure is not None else (
            "skipped" if case.find("skipped") is not None else "passed")
        message = failure.get("message", "") if failure is not None else ""
        seen[case.get("name", "").split("[")[0]] = (outcome, message)
    return seen


ENDS: Final = ["test_end_of_stdin_ends_the_process_quietly", "test_broken_stdout_exits_with_status_1",
               "test_terminating_signals_are_not_handled"]


def test_a_process_ending_late_is_waited_for() -> None:
    """Ending 6 s after stdin closes, after its stdout broke and after SIGTERM, each with the original's
    status: every RTE-10 check holds (with a 5 s wait, each said the process was still running)."""
    target = "cmd:" + shlex.join(command("slow_exit", str(LATE)))
    with tempfile.TemporaryDirectory(prefix="slow-ends-") as tmp:
        seen = outcomes("test_lifecycle.py", ENDS, target, Path(tmp))
    assert sorted(seen) == sorted(ENDS), seen
    assert all(outcome == "passed" for outcome, _ in seen.values()), seen


def test_a_banner_arriving_late_is_waited_for() -> None:
    """A relay holding the banner until 6 s after the first answer: the checks that read it before ending the
    process find it there, and no more after the end (with a 5 s wait, one said the banner was missing and
    the other that SIGTERM made the process write it)."""
    relay = command("late_stderr", "--banner-ms", str(LATE * 1000), "--")
    target = "cmd:" + shlex.join([*relay, sys.executable, "-m", "reference_server"])
    checks = ["test_end_of_stdin_ends_the_process_quietly", "test_terminating_signals_are_not_handled"]
    with tempfile.TemporaryDirectory(prefix="late-banner-") as tmp:
        seen = outcomes("test_lifecycle.py", checks, target, Path(tmp))
    assert sorted(seen) == sorted(checks), seen
    assert all(outcome == "passed" for outcome, _ in seen.values()), seen


def test_a_render_arriving_slowly_is_read_whole() -> None:
    """A 1 MiB thought's box (some 10 MB) relayed after its answer in 1 MiB pieces, each 1.3 s late (the relay
    holds what the server wrote: some 13 s, past the 10 s the check once waited), is read to its end: the
    render holds."""
    relay = command("late_stderr", "--delay-ms", "1300,1300", "--piece-bytes", str(1 << 20), "--")
    target = "cmd:" + shlex.join([*relay, sys.executable, "-m", "reference_server"])
    name = "test_huge_thought_rendered_whole"
    with tempfile.TemporaryDirectory(prefix="slow-render-") as tmp:
        seen = outcomes("test_render.py", [name], target, Path(tmp))
    assert seen.get(name, ("missing", ""))[0] == "passed", seen


def test_a_process_whose_pace_outruns_the_bound_is_too_slow() -> None:
    """A process whose calls take 0.5 s, under a 2 s call timeout, still running at the bound once stdin
    closed: `TooSlow` (slow, not a departure), not an exit status to judge."""
    target = resolve_target("cmd:" + shlex.join(command("slow_exit", "60", "0.5")))
    with RawServer(target, sandbox={}, timeout=30.0) as raw:
        raw.initialize()
        raw.timeout = 2.0
        raw.request("tools/call", {"name": "sequentialthinking", "arguments": {
            "thought": "slow", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}})
        raw.close_stdin()
        try:
            raw.wait_for_end("stdin ended")
        except TooSlow as slow:
            assert "too slow" in str(slow) and "stdin ended" in str(slow), slow
        else:
            raise AssertionError(f"no TooSlow: a pace of {raw.pace:.2f} s against a 2 s call timeout")


def test_a_meeting_waits_for_a_late_end_of_input() -> None:
    """The spec records' meeting ends by closing stdin (SPEC-22 reads its exit): a process ending 6 s later
    with status 0 is seen exiting with 0, within a bound of the call timeout (5 s once: still running)."""
    meeting = meet(resolve_target("cmd:" + shlex.join(command("slow_exit", str(LATE)))), LEGACY, timeout=10.0)
    assert meeting.failure is None, meeting.failure
    assert meeting.end_of_input == 0, meeting.end_of_input
    assert not meeting.end_slow


def test_a_witness_sees_a_late_end_of_input() -> None:
    """BAP-5's witness ends the process's stdin and signs its exit: a process ending 6 s later with status 0
    is signed as exiting with 0, as the original is (5 s once: "still running", a departure re-observed)."""
    target = "cmd:" + shlex.join(command("slow_exit", str(LATE)))
    signed = witness_signatures(target, ["BAP-5"], timeout=10.0)["BAP-5"]
    answers = {answer.step: answer.answer for answer in signed.witness}
    assert answers.get("exit-on-stdin-close") == '{"exit":0}', answers


@given(timeout=st.floats(0.1, 120), pace=st.floats(0, 600))
def test_the_bound_follows_the_pace_within_its_limits(timeout: float, pace: float) -> None:
    bound = end_bound(timeout, pace)
    assert timeout <= bound <= END_LIMIT * timeout
    assert bound >= min(END_PACE * pace, END_LIMIT * timeout)
    assert too_slow(timeout, pace) == (END_PACE * pace > bound)
    assert end_bound(timeout, pace * 2) >= bound
