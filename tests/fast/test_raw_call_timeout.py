"""`--call-timeout` reaches the run's raw processes (`RawPool`): a target hanging on every call costs each raw
check the run's call timeout, not a fixed 10 s, and the check that watches a process after a final thought
does not add its ten-second watch on top of a read that already ran out that timeout (CI's hang case paid
both: tests/e2e/test_fail_fast.py). Real server processes (tests/servers/broken.py, never_answers.py)."""

from __future__ import annotations

import pytest

from conformance.drivers import process
from conformance.suite import test_lifecycle as lifecycle
from conformance.suite.plugin import _RunState
from conformance.suite.rawproc import RawPool, RawServer
from conformance.targets.specs import Target, resolve_target
from tests.servers import command

TIMEOUT = 0.4
"""Short for the test's sake; a slow machine only makes a read run it out sooner than an answer comes."""


def _target(name: str, *args: str) -> Target:
    return resolve_target("cmd:" + " ".join(command(name, *args)))


def test_the_runs_raw_processes_wait_the_runs_call_timeout() -> None:
    """The plugin's run state hands its `--call-timeout` to the pool, and the pool to every process it
    starts: a request no answer comes to fails naming that timeout."""
    state = _RunState(profile="dev", results_dir=None, cache=None, timeout=TIMEOUT, started="now")
    pool = state.raw_pool
    try:
        assert pool.timeout == TIMEOUT
        with pool.lend(_target("never_answers")) as raw:
            assert raw.timeout == TIMEOUT
            with pytest.raises(AssertionError, match=f"no answer to initialize within {TIMEOUT}s"):
                raw.initialize()
    finally:
        pool.close()


def test_a_hang_on_a_final_thought_is_watched_briefly(monkeypatch: pytest.MonkeyPatch) -> None:
    """A final thought never answered (the read ran out the call timeout): ABS-10's check passes (a hang is
    no end of the process; the shared checks report it) after watching the process `LINGER` seconds, not the
    ten its pace rule gives a round trip as long as the timeout."""
    watched: list[float] = []
    wait = RawServer.wait

    def recorded(self: RawServer, timeout: float) -> int | None:
        watched.append(timeout)
        return wait(self, timeout)

    monkeypatch.setattr(RawServer, "wait", recorded)
    target = _target("broken", "hang")
    pool = RawPool(timeout=60.0)
    try:
        # Initialized under a generous timeout, however loaded the machine, then lent again to the check.
        with pool.lend(target) as raw:
            raw.initialize()
            raw.timeout = TIMEOUT
            pid = raw.proc.pid
        started = process.processes_started()
        lifecycle.test_the_process_outlives_a_final_thought(target, pool)
        assert process.processes_started() == started, "the check was lent a new process, not that one"
    finally:
        pool.close()
    assert watched == [lifecycle.LINGER], (watched, pid)
