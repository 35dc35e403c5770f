"""`RawPool.hold_idle` holds the process it lent itself, whether or not the pool keeps it (issue 43).

A server writing a notification just after the handshake (node fork initialized-sends-list-changed; here
tests/servers/late_notification.py) has no process the pool takes back. The hold once started one process
after another looking for a pooled one (77 in 20 s), then gave up after two and held nothing: ABS-10's idle
check never saw such a server's timers, and a heartbeat beside the notification went unseen on every run."""

from __future__ import annotations

import contextlib
import shlex
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance.core.errors import HarnessError
from conformance.suite import rawproc
from conformance.suite.rawproc import RawPool
from conformance.targets.specs import resolve_target
from tests.servers import command, suite_outcomes

HOLD = 2.0
"""The hold in these tests: past the heartbeat's period below, so a held process has written it."""
BEAT_MS = 700


def _held(pids: Path, delay_ms: int, *flags: str) -> tuple[list[tuple[float, bytes]], float, int]:
    """What the pool saw a late-notification server write while `hold_idle(HOLD)` held it, how long the hold
    took, and how many processes it started."""
    pids.unlink(missing_ok=True)
    spec = "cmd:" + shlex.join(command("late_notification", str(delay_ms), "--pids", str(pids), *flags))
    pool = RawPool(timeout=20.0)
    target = resolve_target(spec)
    try:
        started = time.monotonic()
        pool.hold_idle(target, HOLD)
        took = time.monotonic() - started
        return pool.spoke_waiting(target), took, len(pids.read_text(encoding="utf-8").split())
    finally:
        pool.close()


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(delay_ms=st.sampled_from([0, 5, 300]), beating=st.booleans())
@example(delay_ms=0, beating=True)
@example(delay_ms=0, beating=False)
def test_a_process_the_pool_never_takes_back_is_held_once(tmp_path_factory: pytest.TempPathFactory,
                                                          delay_ms: int, beating: bool) -> None:
    """However soon after the handshake the notification comes, the hold starts one process and holds it: a
    timer beside it is heard within the hold, and a quiet one is held the whole while (before: two processes,
    held not at all, the heartbeat never heard)."""
    pids = tmp_path_factory.mktemp("pids") / "pids"
    flags = ("--heartbeat", str(BEAT_MS)) if beating else ()
    spoke, took, processes = _held(pids, delay_ms, *flags)
    assert processes == 1, processes
    if beating:
        assert spoke and b"heartbeat: alive" in spoke[0][1], spoke
        assert took < HOLD, took
    else:
        assert not spoke and took >= HOLD - 0.1, (spoke, took)


def test_abs10_hears_the_timer_of_a_server_whose_processes_are_never_pooled(tmp_path: Path) -> None:
    """The suite's idle check, run alone (no process pooled before it), departs on the heartbeat of a server
    sending a notification after its handshake, as it does on any heartbeat (before: it held)."""
    spec = "cmd:" + shlex.join(command("late_notification", "0", "--heartbeat", str(BEAT_MS)))
    outcomes = suite_outcomes("test_lifecycle.py", ["test_idle_processes_wait_for_their_next_call"], spec,
                              tmp_path)
    outcome, message = outcomes["test_idle_processes_wait_for_their_next_call"]
    assert outcome == "failed" and "heartbeat: alive" in message, outcomes


def test_a_process_writing_stderr_to_nowhere_is_not_the_one_held() -> None:
    """A pooled process whose stderr goes to /dev/null idles silently however it beats: the hold does not end
    on it, however long it has idled, but holds one whose stderr it reads (before: under load such a process
    had idled past the hold, which ended at once, and the end checks learnt no clock line)."""
    target = resolve_target("cmd:" + shlex.join(command("heartbeat", str(BEAT_MS))))
    pool = RawPool(timeout=20.0)
    try:
        with pool.lend(target, discard_stderr=True) as raw:
            raw.initialize()
        for idle in pool._idle.values():  # as if a run's checks had left it waiting long before the hold
            for pooled in idle:
                pooled.idle_since -= 10 * HOLD
        pool.hold_idle(target, HOLD)
        assert b"heartbeat: alive" in pool.clock_lines(target), pool.spoke_waiting(target)
    finally:
        pool.close()


class _Clock:
    """`time` as `rawproc` reads it, with the seconds a run spends elsewhere added by `advance` and every
    `sleep` counted and added, not slept: the hold's waits are counted, never timed."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.sleeps = 0

    def monotonic(self) -> float:
        return time.monotonic() + self.offset

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        self.offset += seconds

    def advance(self, seconds: float) -> None:
        self.offset += seconds

    def time_ns(self) -> int:
        """The wall clock files are dated by (the pool's start, for the files a server's stderr names)."""
        return time.time_ns()


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(mode=st.sampled_from(["crash", "garbage", "same"]), checks=st.integers(min_value=0, max_value=3),
       elsewhere=st.floats(min_value=HOLD, max_value=60.0))
@example(mode="crash", checks=2, elsewhere=HOLD)
@example(mode="same", checks=3, elsewhere=HOLD)
def test_the_hold_ends_at_once_on_the_process_held_since_the_session_started(
        monkeypatch: pytest.MonkeyPatch, mode: str, checks: int, elsewhere: float) -> None:
    """Whatever the checks before it did to their processes (crashed them, garbled them, or gave them back),
    the hold finds the process held since the session started idle that long and waits no more (before: it
    started a process at the end and waited its whole bound, 6 s of every run), starting no process of its
    own; a later hold (the end checks') finds it idled as long too."""
    clock = _Clock()
    monkeypatch.setattr(rawproc, "time", clock)
    target = resolve_target("cmd:" + shlex.join(command("broken", mode)))
    pool = RawPool(timeout=5.0)
    try:
        pool.reserve_hold(target)
        for _ in range(checks):
            with contextlib.suppress(AssertionError, HarnessError), pool.lend(target) as raw:
                raw.initialize()
                raw.request("tools/call", {"name": "sequentialthinking", "arguments": {"thought": "x"}})
        started = len(pool._pids)
        clock.advance(elsewhere)
        pool.hold_idle(target, HOLD)
        pool.hold_idle(target, HOLD)
        assert clock.sleeps == 0, f"the holds waited {clock.sleeps} times after {elsewhere:.1f} s elsewhere"
        assert len(pool._pids) == started, (started, len(pool._pids))
        assert not pool.ended_waiting(target) and not pool.spoke_waiting(target)
    finally:
        pool.close()


def test_a_heartbeat_of_the_process_held_since_the_session_started_is_heard() -> None:
    """The process held since the session started is judged as a lent one was: its beat is what it wrote
    while it waited, and the hold ends on it."""
    target = resolve_target("cmd:" + shlex.join(command("heartbeat", str(BEAT_MS))))
    pool = RawPool(timeout=20.0)
    try:
        pool.reserve_hold(target)
        pool.hold_idle(target, 30.0)
        spoke = pool.spoke_waiting(target)
        assert spoke and b"heartbeat" in spoke[0][1], spoke
    finally:
        pool.close()


def test_a_second_hold_as_long_waits_for_nothing_and_starts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """After ABS-10's hold, an end check spending the held process and then learning clock lines holds
    nothing again (before: it started a process and waited the whole bound once more, 6 s of a red run
    whose end checks' stderr differs, the snake_case port's)."""
    clock = _Clock()
    monkeypatch.setattr(rawproc, "time", clock)
    target = resolve_target("cmd:" + shlex.join(command("broken", "same")))
    pool = RawPool(timeout=5.0)
    try:
        pool.hold_idle(target, HOLD)
        with pool.lend(target, spend=True) as raw:
            raw.initialize()
        started, waited = len(pool._pids), clock.sleeps
        pool.hold_idle(target, HOLD)
        assert clock.sleeps == waited, f"the second hold waited {clock.sleeps - waited} times"
        assert len(pool._pids) == started, (started, len(pool._pids))
    finally:
        pool.close()
