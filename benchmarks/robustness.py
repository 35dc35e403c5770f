"""Robustness figures: how long a run takes against servers that fail every call, how fast a cancelled run
stops, and how many server processes a run starts (docs/robustness.md quotes them).

    python benchmarks/robustness.py [--out reports/benchmarks] [--quick]

Each case is a whole `python -m conformance run` in a child process, as a fork's CI runs it; the figures
the harness counts itself (processes, verdicts) are read from its report.json. Writes robustness.json
and robustness.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

from conformance.gate.run_options import RunOptions

REPO: Final = Path(__file__).resolve().parent.parent
BROKEN: Final = REPO / "tests" / "servers" / "broken.py"
TIMEOUT: Final = 900.0


@dataclass(frozen=True)
class Case:
    name: str
    target: str
    profile: str
    signal_after: float | None = None
    """Send SIGTERM this many seconds after the first test started, and time the exit."""


@dataclass(frozen=True)
class Figure:
    case: str
    target: str
    profile: str
    seconds: float
    exit_code: int
    processes: int
    counts: dict[str, int]
    interrupted: str | None
    stop_seconds: float | None = None


def broken(mode: str) -> str:
    return "cmd:" + shlex.join([sys.executable, str(BROKEN), mode])


def cases(quick: bool) -> list[Case]:
    found = [
        Case("reference, conforming", "reference", "dev"),
        Case("crash on every call", broken("crash"), "dev"),
        Case("hang on every call", broken("hang"), "dev"),
        Case("garbage on every call", broken("garbage"), "dev"),
        Case("reject every call", broken("reject"), "dev"),
        Case("same answer to every call", broken("same"), "dev"),
        Case("SIGTERM mid-run", "reference", "dev", signal_after=10.0),
    ]
    if not quick:
        found += [
            Case("reference, conforming", "reference", "ci"),
            Case("crash on every call", broken("crash"), "ci"),
            Case("hang on every call", broken("hang"), "ci"),
            Case("garbage on every call", broken("garbage"), "ci"),
            Case("reject every call", broken("reject"), "ci"),
            Case("same answer to every call", broken("same"), "ci"),
        ]
    return found


def measure(case: Case, scratch: Path) -> Figure:
    out = scratch / f"{len(list(scratch.iterdir()))}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("CI", None)
    options = RunOptions(target=case.target, profile=case.profile, seed=1, out=out)
    argv = options.command(sys.executable, local=True)
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    stop_seconds = None
    if case.signal_after is not None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if "tests " in line and not line.split("tests ", 1)[1].startswith("0/"):
                break
        time.sleep(case.signal_after)
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(TIMEOUT)
        stop_seconds = round(time.monotonic() - signalled, 2)
    else:
        proc.communicate(timeout=TIMEOUT)
        code = proc.returncode
    seconds = round(time.monotonic() - start, 2)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return Figure(
        case=case.name,
        target=case.target.replace(sys.executable, "python"),
        profile=case.profile,
        seconds=seconds,
        exit_code=code,
        processes=report["run"]["processes_started"],
        counts={k: v for k, v in report["summary"]["counts"].items() if v},
        interrupted=report["run"]["interrupted"],
        stop_seconds=stop_seconds,
    )


def markdown(figures: list[Figure], load: tuple[float, float, float]) -> str:
    lines = [
        "# Robustness figures",
        "",
        f"`python benchmarks/robustness.py`; load average at start {load[0]:.1f} / {load[1]:.1f} / "
        f"{load[2]:.1f} on {os.cpu_count()} cores. Wall time includes interpreter start.",
        "",
        "| case | profile | wall s | exit | server processes | verdicts | stopped |",
        "| --- | --- | ---: | ---: | ---: | --- | --- |",
    ]
    for f in figures:
        verdicts = ", ".join(f"{k} {v}" for k, v in f.counts.items())
        stopped = f.interrupted or ""
        if f.stop_seconds is not None:
            stopped = f"{f.stop_seconds} s after SIGTERM: {stopped}"
        lines.append(f"| {f.case} | {f.profile} | {f.seconds} | {f.exit_code} | {f.processes} | {verdicts} | "
                     f"{stopped[:90]} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "reports" / "benchmarks")
    parser.add_argument("--quick", action="store_true", help="dev profile only")
    args = parser.parse_args()
    load = os.getloadavg()
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="robustness-") as tmp:
        for case in cases(args.quick):
            figure = measure(case, Path(tmp))
            print(f"{figure.case} ({figure.profile}): {figure.seconds} s, exit {figure.exit_code}, "
                  f"{figure.processes} processes", flush=True)
            figures.append(figure)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "robustness.json").write_text(
        json.dumps({"load_average": load, "figures": [asdict(f) for f in figures]}, indent=2) + "\n",
        encoding="utf-8")
    (args.out / "robustness.md").write_text(markdown(figures, load), encoding="utf-8")


if __name__ == "__main__":
    main()
