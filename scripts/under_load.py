"""Run a command under `nohup` while busy loops keep every core busy, as the flake hunt of issue 43 does.

    python -m scripts.under_load --runs 5 -- python -m pytest -m "not slow" -n 2 -q -rf -p no:cacheprovider

Each run starts one busy loop per core (`stress --cpu N` where installed, else Python `while 1: pass`), each
in a process group of its own, runs the command under `nohup` (SIGHUP ignored, as some CI runners and job
wrappers do), then ends the loops' groups by their ids. `{run}` in the command is replaced by the run's
number (for `--basetemp=/tmp/stress-fast-{run}`). Per run it prints the exit status, the wall time, pytest's
summary line and the lowest and highest 1-minute load average seen (sampled every 10 s): the machine is
shared, so the load is usually higher than the loops alone. `--nice 19` runs the loops at that niceness (the
command keeps its own).

The command's output (stdout and stderr, interleaved) is written to `--log-dir`'s run-N.txt line by line as
it comes, so a long run can be read while it runs. The command starts with SIGINT at its default (a script
started in the background from a shell inherits "ignore SIGINT", which the harness's own signal tests would
then meet) in a process group of its own; `--stop-after S` ends that group (SIGTERM, then SIGKILL after a
grace) once S seconds have passed, and says the run was stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path


def _busy_loops(count: int, niceness: int = 0) -> list[subprocess.Popen[bytes]]:
    """Start `count` busy loops at `niceness` (19: they yield to the command, as others' work may not)."""
    if count <= 0:
        return []
    if shutil.which("stress"):
        argvs = [["stress", "--cpu", str(count)]]
    else:
        argvs = [[sys.executable, "-c", "while 1: pass"] for _ in range(count)]
    if niceness:
        argvs = [["nice", "-n", str(niceness), *argv] for argv in argvs]
    quiet = subprocess.DEVNULL
    return [subprocess.Popen(argv, stdout=quiet, stderr=quiet, start_new_session=True) for argv in argvs]


def _end(loops: list[subprocess.Popen[bytes]]) -> None:
    for loop in loops:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(loop.pid, signal.SIGKILL)
        loop.wait()


_DEFAULT_SIGINT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                   "os.execvp(sys.argv[1], sys.argv[1:])")
"""Execs its arguments with SIGINT at its default (a disposition survives exec): no inherited "ignore"."""
_GRACE = 30.0
"""Seconds a stopped command's group has between SIGTERM and SIGKILL."""
_KEPT_LINES = 200
"""Lines of the command's output kept in memory for the summary (failures, pytest's summary line)."""


def _summary(lines: list[str]) -> str:
    said = [line for line in lines if " in " in line and ("passed" in line or "failed" in line)]
    return said[-1].strip("= ") if said else "(no pytest summary)"


def _stop(proc: subprocess.Popen[str]) -> None:
    """End the command's group: SIGTERM, then SIGKILL once `_GRACE` seconds passed."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(_GRACE)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def run_once(command: list[str], log: Path | None, stop_after: float | None) -> tuple[int, list[str], bool]:
    """Run `command` under `nohup`, its output written to `log` as it comes; its exit status, the lines worth
    a summary, and whether `stop_after` ended it."""
    proc = subprocess.Popen([sys.executable, "-c", _DEFAULT_SIGINT, "nohup", *command],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace", start_new_session=True)
    stopped = threading.Event()

    def stop_when_due() -> None:
        if stop_after is not None and not finished.wait(stop_after):
            stopped.set()
            _stop(proc)

    finished = threading.Event()
    timer = threading.Thread(target=stop_when_due, daemon=True)
    timer.start()
    kept: list[str] = []
    assert proc.stdout is not None
    with contextlib.ExitStack() as stack:
        sink = stack.enter_context(log.open("w", encoding="utf-8")) if log is not None else None
        try:
            for line in proc.stdout:
                if sink is not None:
                    sink.write(line)
                    sink.flush()
                if line.startswith(("FAILED ", "ERROR ")) or (" in " in line and (
                        "passed" in line or "failed" in line)):
                    kept.append(line.rstrip("\n"))
                    del kept[:-_KEPT_LINES]
            code = proc.wait()
        except BaseException:
            _stop(proc)
            raise
        finally:
            finished.set()
    return code, kept, stopped.is_set()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--loops", type=int, default=os.cpu_count() or 2, help="busy loops (default: cores)")
    parser.add_argument("--nice", type=int, default=0, metavar="N",
                        help="run the busy loops at this niceness (the command keeps its own)")
    parser.add_argument("--log-dir", type=Path, default=None,
                        help="write each run's output to run-N.txt here as it comes")
    parser.add_argument("--stop-after", type=float, default=None, metavar="SECONDS",
                        help="end a run still going after this many seconds (it is reported as stopped)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="after --: the command to run")
    args = parser.parse_args(argv)
    # Stoppable however it was started (a background job inherits "ignore SIGINT"): a stop ends the busy loops
    # and the command's group on the way out, as the end of a run does.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    if args.log_dir is not None:
        args.log_dir.mkdir(parents=True, exist_ok=True)
    worst = 0
    for run in range(1, args.runs + 1):
        loads: list[float] = []
        stop = threading.Event()

        def sample(loads: list[float] = loads, stop: threading.Event = stop) -> None:
            while not stop.is_set():
                loads.append(os.getloadavg()[0])
                stop.wait(10)

        loops = _busy_loops(args.loops, args.nice)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        began = time.monotonic()
        log = args.log_dir / f"run-{run}.txt" if args.log_dir is not None else None
        try:
            code, kept, stopped = run_once([part.replace("{run}", str(run)) for part in command], log,
                                           args.stop_after)
        finally:
            stop.set()
            _end(loops)
        seconds = time.monotonic() - began
        load = f"{min(loads):.1f}-{max(loads):.1f}" if loads else "?"
        said = _summary(kept)
        ended = f"stopped after {args.stop_after:g} s" if stopped else f"exit {code} after {seconds:.0f} s"
        print(f"run {run}: {ended}, load {load}: {said}", flush=True)
        for line in kept:
            if line.startswith(("FAILED ", "ERROR ")):
                print(f"  {line}", flush=True)
        worst = max(worst, code if not stopped else 1, 0)
    return worst


if __name__ == "__main__":
    sys.exit(main())
