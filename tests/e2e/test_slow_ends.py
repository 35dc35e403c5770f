"""A process slow to end or to finish a long render, at the 10 s call timeout and past the 5 s the checks
once waited (issue 43): a server ending 6 s late behind a relay holding its banner 6 s, and a 10 MB box
relayed over some 13 s, each hold. The same behaviours with servers 2 s late, cheaper, are
tests/fast/test_slow_ends.py, which CI runs: these cases are the evidence tier's (`tox -e evidence`), each
naming its fast siblings."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Final

import pytest

from conformance.calls.meetings import meet
from conformance.core.eras import LEGACY
from conformance.gate.signatures import witness_signatures
from conformance.targets.specs import resolve_target
from tests.servers import command, suite_outcomes

LATE: Final = 6
"""Seconds the slow server takes to end and the relay holds its banner: past the 5 s the checks once waited,
within the call timeout."""
ENDS: Final = ["test_end_of_stdin_ends_the_process_quietly", "test_broken_stdout_exits_with_status_1",
               "test_terminating_signals_are_not_handled"]
FAST: Final = "tests/fast/test_slow_ends.py::"


@pytest.mark.evidence(f"{FAST}test_a_process_ending_late_is_waited_for",
                       f"{FAST}test_a_banner_arriving_late_is_waited_for")
def test_a_process_ending_late_behind_a_late_banner_is_waited_for(tmp_path: Path) -> None:
    """Ending 6 s after stdin closes, after its stdout broke and after each terminating signal, with its
    banner held 6 s after the first answer: every RTE-10 check holds (with a 5 s wait, each said the process
    was still running, one that the banner was missing and one that SIGTERM made the process write it)."""
    relay = command("late_stderr", "--banner-ms", str(LATE * 1000), "--")
    target = "cmd:" + shlex.join([*relay, *command("slow_exit", str(LATE))])
    seen = suite_outcomes("test_lifecycle.py", ENDS, target, tmp_path)
    assert sorted(seen) == sorted(ENDS), seen
    assert all(outcome == "passed" for outcome, _ in seen.values()), seen


@pytest.mark.evidence(f"{FAST}test_a_render_arriving_slowly_is_read_whole")
def test_a_render_arriving_slowly_is_read_whole(tmp_path: Path) -> None:
    """A 1 MiB thought's box (some 10 MB) relayed after its answer in 1 MiB pieces, each 1.3 s late (some
    13 s, past the 10 s the check once waited), is read to its end: the render holds."""
    relay = command("late_stderr", "--delay-ms", "1300,1300", "--piece-bytes", str(1 << 20), "--")
    target = "cmd:" + shlex.join([*relay, sys.executable, "-m", "reference_server"])
    name = "test_huge_thought_rendered_whole"
    seen = suite_outcomes("test_render.py", [name], target, tmp_path)
    assert seen.get(name, ("missing", ""))[0] == "passed", seen


@pytest.mark.evidence(f"{FAST}test_a_meeting_sees_a_late_end_of_input",
                       f"{FAST}test_a_witness_sees_a_late_end_of_input")
def test_a_meeting_and_a_witness_wait_for_a_late_end_of_input() -> None:
    """The spec records' meeting (SPEC-22) and BAP-5's witness each end a process's stdin: a process ending
    6 s later with status 0 is seen exiting with 0 by both (5 s once: still running, a departure
    re-observed)."""
    target = resolve_target("cmd:" + shlex.join(command("slow_exit", str(LATE))))
    meeting = meet(target, LEGACY, timeout=10.0)
    assert meeting.failure is None, meeting.failure
    assert (meeting.end_of_input, meeting.end_slow) == (0, False), (meeting.end_of_input, meeting.end_slow)
    signed = witness_signatures(target, ["BAP-5"], timeout=10.0)["BAP-5"]
    answers = {answer.step: answer.answer for answer in signed.witness}
    assert answers.get("exit-on-stdin-close") == '{"exit":0}', answers
