"""What a command costs in CPU seconds and peak memory, apart from every other process on the machine.

A test that bounds the wall clock fails on a loaded machine (issue 43: under two busy loops beside other jobs
a second of CPU took 30 s of wall time); the CPU a command and everything it reaped spent is the same there
as on an idle machine, while a blow-up costs CPU anywhere. So tests bound work in CPU seconds, and the wall
clock only catches a hang (a blocking read costs no CPU), at a deadline no slow machine reaches.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

LAUNCHER: Final = """
import resource, signal, subprocess, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
code = subprocess.call(sys.argv[2:])
used = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as result:
    result.write(f"{code} {used.ru_maxrss} {used.ru_utime + used.ru_stime}")
"""
"""Runs the command as its own child and writes its exit status, peak memory (KiB) and CPU seconds (user +
system, of the command and every descendant it waited for: a run's server processes among them). Measured
from a small process, as a child of the test process would start with the test process's own peak."""


class StillRunning(AssertionError):
    """The command was still running at its wall-clock deadline (killed with its whole group)."""


@dataclass(frozen=True)
class Cost:
    code: int
    stdout: str
    stderr: str
    cpu_seconds: float
    """User + system time of the command and everything it reaped."""
    peak_mib: float
    """The largest resident set of the command or any one descendant it reaped."""


def measured(command: Sequence[str], *, cwd: Path, hang_seconds: float,
             env: Mapping[str, str] | None = None) -> Cost:
    """Run `command` as a grandchild in a process group of its own, and what it cost; after `hang_seconds` of
    wall time the group is killed and `StillRunning` raised (a hang, not a slow machine)."""
    folder = Path(tempfile.mkdtemp(prefix="seqthink-cost-"))
    result = folder / "cost.txt"
    try:
        return _measured(command, cwd, hang_seconds, env, result)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _measured(command: Sequence[str], cwd: Path, hang_seconds: float, env: Mapping[str, str] | None,
              result: Path) -> Cost:
    launcher = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, str(result), *command], cwd=cwd,
        env=dict(env) if env is not None else None, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True)
    try:
        stdout, stderr = launcher.communicate(timeout=hang_seconds)
    except subprocess.TimeoutExpired:
        os.killpg(launcher.pid, signal.SIGKILL)  # the launcher and the command (which may hold SIGTERM)
        launcher.communicate()
        raise StillRunning(f"still running after {hang_seconds:g} s: {list(command)}") from None
    try:
        code, peak, seconds = result.read_text(encoding="utf-8").split()
    except FileNotFoundError:
        raise AssertionError(f"the launcher wrote no cost (exit {launcher.returncode}): "
                             f"{stderr.decode('utf-8', 'replace')[-2000:]}") from None
    return Cost(int(code), stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"),
                float(seconds), int(peak) / 1024)
