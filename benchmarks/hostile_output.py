"""Exit status, wall time, peak memory and first stderr line of `run` (and `compare`) against the servers
of issue 45 that send hostile output (tests/servers/hostile_output.py); docs/robustness.md quotes it.

    python -m benchmarks.hostile_output [--root DIR] [--cases a,b] [--compare a,b] [--limit S] [--out DIR]

Each case is one `python -m conformance run --target 'cmd:python tests/servers/hostile_output.py CASE'
--profile dev --seed 1` (and `compare CASE reference` for the `--compare` cases) started in `--root`
(another checkout measures the code there: the "before" of a change), beside a conforming run of the
reference as the yardstick. Peak memory is the largest resident set of the harness's process tree,
sampled every 0.2 s (a run killed at `--limit` has no `ru_maxrss` to give); at `--limit` seconds the run
gets SIGTERM, 10 s later SIGKILL. Writes hostile_output.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

import psutil

REPO: Final = Path(__file__).resolve().parent.parent
CASES: Final = ("batch-garbage", "batch-deep", "deep-text", "batch-chatter", "many-tools")
MiB: Final = 1 << 20


@dataclass
class Measured:
    case: str
    command: str
    exit: int
    seconds: float
    peak_mib: float
    first_line: str


def _tree_rss(process: psutil.Process) -> int:
    total = 0
    try:
        family = [process, *process.children(recursive=True)]
    except psutil.Error:
        return 0
    for member in family:
        try:
            total += member.memory_info().rss
        except psutil.Error:
            continue
    return total


def measure(root: Path, case: str, command: str, args: list[str], limit: float) -> Measured:
    """One command started in `root`, watched until it ends (or is ended at `limit`)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "out"
        argv = [sys.executable, "-m", "conformance", command, *args, "--out", str(out)]
        env = {**os.environ, "PYTHONPATH": str(root)}
        started = time.monotonic()
        with open(Path(scratch) / "stderr", "w+b") as err:
            child = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=err)
            watched = psutil.Process(child.pid)
            peak, signalled = 0, 0.0
            while child.poll() is None:
                peak = max(peak, _tree_rss(watched))
                elapsed = time.monotonic() - started
                if elapsed > limit and not signalled:
                    child.send_signal(signal.SIGTERM)
                    signalled = elapsed
                elif signalled and elapsed > signalled + 10:
                    for member in [*watched.children(recursive=True), watched]:
                        try:
                            member.kill()
                        except psutil.Error:
                            continue
                time.sleep(0.2)
            seconds = time.monotonic() - started
            err.seek(0)
            said = err.read().decode("utf-8", "replace").splitlines()
            first = next((line for line in said if line.strip()), "")
        shown = " ".join(["python -m conformance", command, *(f"'{a}'" if " " in a else a for a in args)])
        return Measured(case, shown, child.returncode, round(seconds, 1), round(peak / MiB, 1), first[:160])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO, help="the checkout whose harness is measured")
    parser.add_argument("--cases", default="reference," + ",".join(CASES))
    parser.add_argument("--compare", default="deep-text,batch-garbage",
                        help="cases also measured as `compare CASE reference`")
    parser.add_argument("--limit", type=float, default=240.0, help="seconds before SIGTERM")
    parser.add_argument("--out", type=Path, default=REPO / "reports" / "benchmarks")
    options = parser.parse_args(argv)
    server = REPO / "tests" / "servers" / "hostile_output.py"
    rows: list[Measured] = []
    for case in options.cases.split(","):
        target = "reference" if case == "reference" else f"cmd:python {server} {case}"
        dev = ["--profile", "dev", "--seed", "1"]
        commands: list[tuple[str, list[str]]] = [("run", ["--target", target, *dev])]
        if case in options.compare.split(","):
            commands.append(("compare", [target, "reference", *dev]))
        for command, args in commands:
            row = measure(options.root.resolve(), case, command, args, options.limit)
            print(f"{row.case} {command}: exit {row.exit}, {row.seconds} s, {row.peak_mib} MiB, "
                  f"{row.first_line!r}", flush=True)
            rows.append(row)
    options.out.mkdir(parents=True, exist_ok=True)
    (options.out / "hostile_output.json").write_text(json.dumps([asdict(r) for r in rows], indent=2) + "\n",
                                                     encoding="utf-8")
    lines = ["| case | command | exit | seconds | peak MiB | first stderr line |",
             "| --- | --- | ---: | ---: | ---: | --- |"]
    lines += [f"| {r.case} | {r.command.split()[3]} | {r.exit} | {r.seconds} | {r.peak_mib} | "
              f"{r.first_line.replace('|', '/')} |" for r in rows]
    (options.out / "hostile_output.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
