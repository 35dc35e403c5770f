"""Run a command under `nohup` while busy loops keep every core busy, as the flake hunt of issue 43 does.

    python -m scripts.under_load --runs 5 -- python -m pytest -m "not slow" -n 2 -q -rf -p no:cacheprovider

Each run starts one busy loop per core (`stress --cpu N` where installed, else Python `while 1: pass`), each
in a process group of its own, runs the command under `nohup` (SIGHUP ignored, as some CI runners and job
wrappers do), then ends the loops' groups by their ids. `{run}` in the command is replaced by the run's
number (for `--basetemp=/tmp/stress-fast-{run}`). Per run it prints the exit status, the wall time, pytest's
summary line and the lowest and highest 1-minute load average seen (sampled every 10 s): the machine is
shared, so the load is usually higher than the loops alone.
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


def _busy_loops(count: int) -> list[subprocess.Popen[bytes]]:
    if shutil.which("stress"):
        argvs = [["stress", "--cpu", str(count)]]
    else:
        argvs = [[sys.executable, "-c", "while 1: pass"] for _ in range(count)]
    quiet = subprocess.DEVNULL
    return [subprocess.Popen(argv, stdout=quiet, stderr=quiet, start_new_session=True) for argv in argvs]


def _end(loops: list[subprocess.Popen[bytes]]) -> None:
    for loop in loops:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(loop.pid, signal.SIGKILL)
        loop.wait()


def _summary(output: str) -> str:
    lines = [line for line in output.splitlines()
             if " in " in line and ("passed" in line or "failed" in line)]
    return lines[-1].strip("= ") if lines else "(no pytest summary)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--loops", type=int, default=os.cpu_count() or 2, help="busy loops (default: cores)")
    parser.add_argument("--log-dir", type=Path, default=None, help="keep each run's output as run-N.txt here")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="after --: the command to run")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    worst = 0
    for run in range(1, args.runs + 1):
        loads: list[float] = []
        stop = threading.Event()

        def sample(loads: list[float] = loads, stop: threading.Event = stop) -> None:
            while not stop.is_set():
                loads.append(os.getloadavg()[0])
                stop.wait(10)

        loops = _busy_loops(args.loops)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        began = time.monotonic()
        try:
            done = subprocess.run(["nohup", *(part.replace("{run}", str(run)) for part in command)],
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
        finally:
            stop.set()
            _end(loops)
        seconds = time.monotonic() - began
        if args.log_dir is not None:
            args.log_dir.mkdir(parents=True, exist_ok=True)
            (args.log_dir / f"run-{run}.txt").write_text(done.stdout + done.stderr, "utf-8")
        failed = [line for line in done.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
        load = f"{min(loads):.1f}-{max(loads):.1f}"
        said = _summary(done.stdout)
        print(f"run {run}: exit {done.returncode} after {seconds:.0f} s, load {load}: {said}", flush=True)
        for line in failed:
            print(f"  {line}", flush=True)
        worst = max(worst, done.returncode)
    return worst


if __name__ == "__main__":
    sys.exit(main())
