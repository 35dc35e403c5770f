"""Run a command on a simulated slow, unevenly loaded machine: every process of its tree is stopped and
continued on its own random schedule, so each runs about 1/`--slow` of the time and their order shifts.

    python -m scripts.jitter --slow 10 -- python -m pytest tests/fast/test_wire_driver.py -q

Why: the flake hunt of issue 43 needs tests that pass "on a machine 10x slower", and busy loops only make a
race show now and then (the load is shared and the scheduler favours waking processes). Stopping processes
(SIGSTOP/SIGCONT, only the command's own tree, found by parentage) costs little CPU, leaves the other users of
the machine alone and reaches the orderings load makes rare: a server slowed while its driver is not, a
child that outlives its parent's exit for a while. A test that fails here and passes alone waits on time, not
on an event; a product time limit (a quiet period) fails here by design and is named as such.

Every stopped process is continued before the tool exits, whatever ends it.

Not a model of load for pipe floods: a Python writer stopped in the middle of a large write to a full pipe
lost bytes here (a direct repro, 64-frame writes read in 64 KiB chunks, stopped every ~3 ms: 1,157 broken
lines of 1,252,685; none without the stops), and a writer and its reader each running 1/SLOW of the time
move a pipe's 64 KiB about 1/SLOW**2 as often. A test of a stdout or stderr flood failing here
(test_stream_bounds, test_hostile_replies) says nothing about load.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Final

import psutil

TICK: Final = 0.005
"""Seconds between two passes over the tree: each process's next switch is due at some tick."""

RUN_MEAN: Final = 0.01
"""Mean seconds a process runs between two stops (exponential): short enough to cut any wait in pieces."""


def _tree(root: int) -> list[int]:
    """The root and every descendant alive now (a process started since the last pass joins here)."""
    try:
        parent = psutil.Process(root)
        return [root, *(child.pid for child in parent.children(recursive=True))]
    except psutil.Error:
        return []


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def jitter(proc: subprocess.Popen[bytes], slow: float, seed: int | None) -> int:
    """Stop and continue `proc`'s tree until it exits; its exit status. Each process runs for an
    exponential time of mean RUN_MEAN, then is stopped for one of mean RUN_MEAN * (slow - 1)."""
    rng = random.Random(seed)
    stop_mean = RUN_MEAN * max(0.0, slow - 1.0)
    due: dict[int, tuple[bool, float]] = {}  # pid -> (stopped, when its state switches)
    try:
        while proc.poll() is None:
            now = time.monotonic()
            alive = _tree(proc.pid)
            for pid in alive:
                stopped, at = due.get(pid, (False, now + rng.expovariate(1 / RUN_MEAN)))
                if now >= at:
                    stopped = not stopped and stop_mean > 0
                    _signal(pid, signal.SIGSTOP if stopped else signal.SIGCONT)
                    mean = stop_mean if stopped else RUN_MEAN
                    at = now + rng.expovariate(1 / mean)
                due[pid] = (stopped, at)
            for pid in set(due) - set(alive):  # left the tree (an orphan reparented): let it run on
                if due.pop(pid)[0]:
                    _signal(pid, signal.SIGCONT)
            time.sleep(TICK)
    finally:
        for pid in due:
            _signal(pid, signal.SIGCONT)
        for pid in _tree(proc.pid):
            _signal(pid, signal.SIGCONT)
    return proc.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--slow", type=float, default=5.0, help="each process runs about 1/SLOW of the time")
    parser.add_argument("--seed", type=int, default=None, help="the schedule's seed (default: random)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="after --: the command to run")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("a command is needed after --")
    if args.slow < 1:
        parser.error("--slow is at least 1")
    proc = subprocess.Popen(command)
    previous = signal.signal(signal.SIGINT, lambda *_: proc.send_signal(signal.SIGINT))
    try:
        return jitter(proc, args.slow, args.seed)
    finally:
        signal.signal(signal.SIGINT, previous)


if __name__ == "__main__":
    sys.exit(main())
