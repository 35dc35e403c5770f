"""`scripts/under_load` (issue 43's flake hunt): the command's output reaches the run's log as it comes, the
command starts with SIGINT at its default whatever its parent ignores, and `--stop-after` ends a run that goes
on. Real child processes; no busy loops (`--loops 0`), so the test costs what its commands cost."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from scripts.under_load import _busy_loops, _end
from tests.cli import REPO

_CHILD = """
import pathlib, signal, sys, time
print("first line", flush=True)
log, deadline = pathlib.Path(sys.argv[1]), time.monotonic() + 60
while "first line" not in log.read_text(encoding="utf-8") and time.monotonic() < deadline:
    time.sleep(0.02)
print("in the log" if "first line" in log.read_text(encoding="utf-8") else "not in the log", flush=True)
default = signal.getsignal(signal.SIGINT) is signal.default_int_handler
print("SIGINT default" if default else "SIGINT not default", flush=True)
"""
"""Prints a line, then waits (bounded) until the run's log holds it: a log written only once the command ended
never does while it runs."""


def _under_load(tmp_path: Path, *command: str, stop_after: str | None = None
                ) -> subprocess.CompletedProcess[str]:
    stop = ["--stop-after", stop_after] if stop_after is not None else []
    return subprocess.run(
        [sys.executable, "-m", "scripts.under_load", "--loops", "0", *stop, "--log-dir", str(tmp_path), "--",
         *command], cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))


def test_the_log_holds_each_line_as_it_comes_and_sigint_is_reset(tmp_path: Path) -> None:
    """The child reads the log while it runs: its first line gets there. Started from a parent that
    ignores SIGINT (a script in a shell's background), it still gets the default."""
    done = _under_load(tmp_path, sys.executable, "-c", _CHILD, str(tmp_path / "run-1.txt"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("run 1: exit 0 after "), done.stdout
    log = (tmp_path / "run-1.txt").read_text(encoding="utf-8")
    assert log.splitlines() == ["first line", "in the log", "SIGINT default"], log


def test_stop_after_ends_a_run_that_goes_on_and_says_so(tmp_path: Path) -> None:
    done = _under_load(tmp_path, sys.executable, "-c", "import time; time.sleep(600)", stop_after="0.5")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("run 1: stopped after 0.5 s, "), done.stdout


def test_nice_runs_the_busy_loops_at_that_niceness() -> None:
    """`--nice 19` leaves the command its share: each loop (and what `stress` forks) runs at niceness 19,
    polled within a bounded deadline since `nice` sets it just before it execs the loop."""
    loops = _busy_loops(1, 19)
    try:
        procs = [psutil.Process(loop.pid) for loop in loops]
        deadline = time.monotonic() + 60
        while any(p.nice() != 19 for p in procs) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [p.nice() for p in procs] == [19] * len(procs)
        assert all(child.nice() == 19 for p in procs for child in p.children(recursive=True))
    finally:
        _end(loops)
    assert all(loop.poll() is not None for loop in loops)
