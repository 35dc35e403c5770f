"""A check whose calls met two shared processes is told so (`ServerSession.shared_mark` /
`met_two_processes`, issue 43): a server ending itself after a final thought inside an explicit example had
the next call answered by a new process, whose count fell (13 -> 1), and OBJ-2 was named for the process's
life. Real processes of tests/servers/ends_itself.py (it exits right after answering a final thought)."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance.calls.strategies import Envelope
from conformance.suite.session import ServerSession
from tests.cli import REPO, cli
from tests.fast.test_sdk_driver import assert_gone
from tests.servers import HERE
from tests.sessions import history_length, tagged_session

ENDED_WITHIN = 60.0
"""How long a process that answered its final thought may take to be seen gone (seconds): only a hang
reaches it, however slow the machine."""


def _session() -> tuple[ServerSession, str]:
    return tagged_session("ends_itself", timeout=30.0)


def _call_and_let_end(session: ServerSession, number: int, final: bool) -> int:
    """One call; after a final one, wait (bounded) until its process has ended, so the next call starts a new
    process instead of racing the exit."""
    driver = session.wire
    count = history_length(session.call(Envelope("t", number, number, not final).arguments()))
    deadline = time.monotonic() + ENDED_WITHIN
    while final and driver.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not (final and driver.is_alive()), "the server did not end after its final thought"
    return count


def test_calls_across_an_ended_process_met_two_and_later_ones_one() -> None:
    session, tag = _session()
    try:
        before = session.shared_mark()
        assert _call_and_let_end(session, 1, final=False) == 1
        assert _call_and_let_end(session, 2, final=True) == 2
        after_end = session.shared_mark()
        assert not session.met_two_processes(before), "no call reached the new process yet"
        assert session.ended_since(before), "the process the calls met has ended"
        assert not session.ended_since(after_end), "no call since then"
        assert _call_and_let_end(session, 3, final=False) == 1  # a new process: its count starts again
        assert session.restarts == 1
        assert session.met_two_processes(before) and session.ended_since(before)
        assert not session.met_two_processes(after_end), "every call since then went to the new process"
        assert not session.ended_since(after_end), "and it still runs"
        assert not session.met_two_processes(session.shared_mark())
    finally:
        session.close()
    assert_gone(tag)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(finals=st.lists(st.booleans(), min_size=1, max_size=5), at=st.integers(min_value=0, max_value=5))
@example(finals=[True, False], at=1)  # the mark taken just after the end: one process since
@example(finals=[False, True, False], at=1)
def test_met_two_processes_exactly_when_a_final_thought_fell_between_the_calls_since_the_mark(
    finals: list[bool], at: int
) -> None:
    """Whatever the calls and wherever the mark: two processes met since the mark iff a call since the mark
    that was not the last ended its process; every count starts again after a final thought."""
    at = min(at, len(finals))
    session, tag = _session()
    try:
        mark = 0
        expected = 0
        for index, final in enumerate(finals):
            if index == at:
                mark = session.shared_mark()
            expected += 1
            assert _call_and_let_end(session, index + 1, final) == expected
            if final:
                expected = 0
        if at == len(finals):
            mark = session.shared_mark()
        assert session.met_two_processes(mark) == any(finals[at:-1]), (finals, at)
        assert session.restarts == sum(finals[:-1])
    finally:
        session.close()
    assert_gone(tag)


def test_a_check_whose_calls_met_two_processes_is_a_target_failure_not_its_records(tmp_path: Path) -> None:
    """Through the command line: the stand-in suite's one check reads the count fall across the server's
    exit; its record is an error, "target failure: the shared server process ended during this check", not a
    departure of OBJ-2 (the first check of a session included: its uses all began in that check)."""
    suite = str(REPO / "tests" / "cli_suite" / "ends_itself_suite.py")
    ran = cli("run", "--target", "cmd:" + shlex.join([sys.executable, str(HERE / "ends_itself.py")]),
              "--suite", suite, "--profile", "dev", "--seed", "1", out=tmp_path / "out")
    assert ran.code == 1, ran.stdout + ran.stderr
    [record] = [r for r in ran.report["records"] if r["id"] == "OBJ-2"]
    assert record["verdict"] == "error", record
    assert record["reason"].startswith("target failure: the shared server process ended during this check"), (
        record["reason"])
