"""ABS-10's idle check judges one window from a held process's last answer, the same on every run (issue 43),
and the process held for it is one the fresh runs were done with, not one started for it (issue 46).

Held beside the checks for the whole run, the process `RawPool.reserve_hold` started was read only when the
check ran: a timer slower than the gate's 6 s idle witness (a 30 s keep-alive) was seen on runs that outlasted
it and on no other, and a fast one was dated by the run's length, not by when it was written."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conformance.suite import rawproc, test_lifecycle
from conformance.suite.rawproc import RawPool
from conformance.targets.specs import resolve_target
from tests.servers import ROOT, command

WINDOW = 1.0
"""The window in these tests, for `IDLE_HOLD`'s 6 s: shorter than the slow beat, longer than the fast one."""
LONG_RUN = 5.5
"""Seconds the held process idles before the check, as the checks of a long run keep it waiting."""


def _idled(seconds: float) -> None:
    """Let the held process idle, as the run's other checks would (a wait, not a timed assertion)."""
    threading.Event().wait(seconds)


def test_a_timer_slower_than_the_window_is_not_judged_however_long_the_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A beat every 4 s, once the held process idled past it: the check judges the window only and holds, as
    the gate's idle witness holding its process that long does (before: it departed on the beat, on runs
    lasting longer than the beat only)."""
    monkeypatch.setattr(rawproc, "IDLE_HOLD", WINDOW, raising=False)
    monkeypatch.setattr(test_lifecycle, "IDLE_HOLD", WINDOW)
    target = resolve_target("cmd:" + shlex.join(command("heartbeat", "4000")))
    pool = RawPool(timeout=20.0)
    try:
        pool.reserve_hold(target)
        _idled(LONG_RUN)
        test_lifecycle.test_idle_processes_wait_for_their_next_call(target, pool)
        assert any(b"heartbeat" in said for _, said in pool.spoke_waiting(target)), (
            "the beat was not read at all: a clock line the end checks would not know")
    finally:
        pool.close()


def test_a_timer_faster_than_the_window_is_dated_within_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A beat every 0.3 s on the held process is noted with when it came within the window, however long
    the process idled before the check (before: dated when the check read it, the run's length)."""
    monkeypatch.setattr(rawproc, "IDLE_HOLD", WINDOW, raising=False)
    target = resolve_target("cmd:" + shlex.join(command("heartbeat", "300")))
    pool = RawPool(timeout=20.0)
    try:
        pool.reserve_hold(target)
        _idled(LONG_RUN)
        pool.hold_idle(target, WINDOW)
        spoke = pool.spoke_waiting(target)
        assert spoke and b"heartbeat" in spoke[0][1] and spoke[0][0] <= WINDOW, spoke
    finally:
        pool.close()


def test_the_window_is_held_on_a_process_the_fresh_runs_were_done_with(tmp_path: Path) -> None:
    """A run of the fresh runs' check, two checks on a used pooled process (the first on the shared one too)
    and ABS-10's idle check starts the fresh runs' three processes and the shared one, no other (the run's
    own count): the window is held on a process the fresh runs were done with, and the second check takes it
    from its window rather than start one (before: a fifth, started for the hold)."""
    spec = "reference"
    tests = ["test_replay_on_fresh_processes_is_identical", "test_one_response_per_request_and_nothing_else",
             "test_a_cancelled_call_is_kept", "test_idle_processes_wait_for_their_next_call"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "conformance/suite/test_lifecycle.py", "-q",
         "-p", "no:cacheprovider", "-k", " or ".join(tests), f"--basetemp={tmp_path / 'pytest'}",
         "--target", spec, "--results-dir", str(tmp_path / "results")],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
    results = json.loads(next((tmp_path / "results").glob("results-*.json")).read_text(encoding="utf-8"))
    assert results["processes_started"] == 4, results["processes_started"]


def test_a_check_needing_a_process_takes_the_one_in_its_window() -> None:
    """A process a check gave back is held for the window; the next check needing a used process takes it
    rather than start one, and the window moves to it once given back again: one process in all (before this
    cut, with the window's process out of reach, two)."""
    target = resolve_target("cmd:" + shlex.join(command("heartbeat", "60000")))
    pool = RawPool(timeout=20.0)
    try:
        pool.reserve_hold(target, WINDOW, start=False)
        for _ in range(2):
            with pool.lend(target) as raw:
                raw.initialize()
                raw.request("tools/list", {})
        pool.hold_idle(target, WINDOW)
        assert len(pool._pids) == 1, pool._pids
        assert not pool.spoke_waiting(target) and not pool.ended_waiting(target)
    finally:
        pool.close()
