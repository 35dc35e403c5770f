"""A line a server writes on a clock is left out of what the suite's stderr checks compare, learnt before they
judge, not only once ABS-10's idle check has run (issue 43).

LOOP-B compares what two fresh processes wrote per call. A heartbeat's beat falls into whichever call's read
it meets, so the reads differed on some runs and not others (a 2.5 s beat under load): LOOP-B departed under
some seeds only. The checks of a process's end (closed stdin, signals) read the same way. Now, when what
they compare still differs once the known clock lines are out, a process is held idle first
(`RawPool.hold_idle`) and the lines it wrote idle are left out too; a per-call line that differs between
processes still departs.
"""

from __future__ import annotations

import shlex
from functools import partial
from pathlib import Path

import pytest

from tests.servers import command, suite_outcomes
from tests.side_by_side import side_by_side

LOOP_B = "test_replay_on_fresh_processes_is_identical"
ENDS = ("test_end_of_stdin_ends_the_process_quietly", "test_terminating_signals_are_not_handled")


def _heartbeat(period_ms: int, *flags: str) -> str:
    return "cmd:" + shlex.join(command("heartbeat", str(period_ms), *flags))


PERIODS = (300, 2500)
"""A beat more often than the suite's idle check, and one it misses (its 1.5 s)."""


def test_a_heartbeat_makes_no_stderr_check_depart(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The reference with a heartbeat of either period passes LOOP-B and the end checks, run before any idle
    check (before: LOOP-B failed, "stderr 4 is b'heartbeat: alive\\n', then b''"). Both periods side by
    side: each suite mostly waits on its heartbeat's processes."""
    folders = {period: tmp_path_factory.mktemp(f"suite-{period}") for period in PERIODS}
    seen = side_by_side(*(partial(suite_outcomes, "test_lifecycle.py", [LOOP_B, *ENDS], _heartbeat(period),
                                  folders[period]) for period in PERIODS))
    for period, outcomes in zip(PERIODS, seen, strict=True):
        assert set(outcomes) == {LOOP_B, *ENDS}, (period, outcomes)
        assert all(outcome == "passed" for outcome, _ in outcomes.values()), (period, outcomes)


def test_a_per_call_line_differing_between_processes_still_departs(tmp_path: Path) -> None:
    """A line each box ends with, naming its process, is no clock line: LOOP-B departs on it beside a
    heartbeat."""
    outcomes = suite_outcomes("test_lifecycle.py", [LOOP_B], _heartbeat(1000, "--process-tag"), tmp_path)
    outcome, message = outcomes[LOOP_B]
    assert outcome == "failed" and "different stderr" in message, outcomes
