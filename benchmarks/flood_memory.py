"""Peak memory of the harness against servers that flood what they write (docs/robustness.md quotes it).

    python -m benchmarks.flood_memory [--out reports/benchmarks] [--quick]

Each case runs in a child process of its own, so its peak resident set (`ru_maxrss`) is that case's alone:
a wire driver initializes the server, makes one tools/call and reads whatever the server writes, its
transcript on disk, until the driver's bounds end it (frame limit, call timeout). The last case is a whole
`conformance run` against the stdout flood (in the child process, its servers its own children), stopped by
`--max-time` unless it ends sooner. Writes flood_memory.json and flood_memory.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

REPO: Final = Path(__file__).resolve().parent.parent
SERVERS: Final = REPO / "tests" / "servers"
MiB: Final = 1 << 20
VALID: Final = {"thought": "first", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}

CASES: Final = {
    "stdout without a newline, without end": ["stdout_flood.py", "no-newline", "forever"],
    "one 64 MiB stdout line": ["stdout_flood.py", "line", "64"],
    "notification frames without end": ["stdout_flood.py", "frames"],
    "stderr without end during a call": ["stderr_flood.py", "--forever"],
    "stderr one byte per write": ["stderr_trickle.py"],
}
"""Case name → the server (a file in tests/servers/) and its arguments."""


@dataclass
class Case:
    name: str
    peak_rss_mib: float
    seconds: float
    outcome: str
    transcript_mib: float


def measure_case(server: list[str], timeout: float) -> dict[str, object]:
    """In this process: one call against `server`; what it ended with and what the transcript weighs."""
    from conformance.drivers.errors import DriverError
    from conformance.drivers.transcript import Transcript
    from conformance.drivers.wire import WireDriver

    command = [sys.executable, str(SERVERS / server[0]), *server[1:]]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="seqthink-flood-") as tmp:
        path = Path(tmp) / "transcript.jsonl"
        with Transcript(path) as transcript, WireDriver(command, timeout=timeout, transcript=transcript) as d:
            d.initialize()
            try:
                for _ in range(20):
                    d.call_tool("sequentialthinking", VALID)
                outcome = "answered"
            except DriverError as exc:
                outcome = f"{type(exc).__name__}: {str(exc)[:120]}"
        size = path.stat().st_size
    return {"seconds": time.monotonic() - started, "outcome": outcome, "transcript_bytes": size,
            "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


def run_case(name: str, timeout: float) -> Case:
    got = _child(["--case", name, "--call-timeout", str(timeout)], 600)
    return Case(name, round(got["peak_rss_kib"] / 1024, 1), round(got["seconds"], 1), got["outcome"],
                round(got["transcript_bytes"] / MiB, 1))


def measure_whole(max_time: float) -> dict[str, object]:
    """In this process: a whole `conformance run` against the endless stdout flood, stopped by its deadline
    if it has not ended sooner (the servers are child processes, so the peak is the harness's own)."""
    import io

    from conformance.cli.main import main as conformance

    target = f"cmd:{sys.executable} {SERVERS / 'stdout_flood.py'} no-newline forever"
    with tempfile.TemporaryDirectory(prefix="seqthink-flood-run-") as tmp:
        started = time.monotonic()
        code = conformance(["run", "--target", target, "--profile", "dev", "--seed", "1", "--max-time",
                            f"{max_time:g}", "--out", str(Path(tmp) / "out")], stdout=io.StringIO(),
                           stderr=io.StringIO())
        seconds = time.monotonic() - started
        size = sum(p.stat().st_size for p in (Path(tmp) / "out").rglob("*") if p.is_file())
    return {"seconds": seconds, "outcome": f"exit {code}", "transcript_bytes": size,
            "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


def run_whole(max_time: float) -> Case:
    got = _child(["--whole", f"{max_time:g}"], max_time + 300)
    return Case(f"whole run, stdout flood, --max-time {max_time:g}", round(got["peak_rss_kib"] / 1024, 1),
                round(got["seconds"], 1), str(got["outcome"]), round(got["transcript_bytes"] / MiB, 1))


def _child(argv: list[str], timeout: float) -> dict[str, Any]:
    """This module in a child process; its last stdout line is the JSON of what it measured."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "benchmarks.flood_memory", *argv], cwd=REPO, env=env,
                          capture_output=True, text=True, check=True, timeout=timeout)
    got: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return got


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.flood_memory", description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("reports/benchmarks"))
    parser.add_argument("--quick", action="store_true", help="shorter timeouts, no whole run")
    parser.add_argument("--call-timeout", type=float, default=10.0, help=argparse.SUPPRESS)
    parser.add_argument("--case", choices=sorted(CASES), default=None, help=argparse.SUPPRESS)
    parser.add_argument("--whole", type=float, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.case is not None:
        print(json.dumps(measure_case(CASES[args.case], args.call_timeout)))
        return 0
    if args.whole is not None:
        print(json.dumps(measure_whole(args.whole)))
        return 0
    timeout = 3.0 if args.quick else 10.0
    cases = []
    for name in CASES:
        cases.append(run_case(name, timeout))
        print(f"{name}: peak {cases[-1].peak_rss_mib} MiB, {cases[-1].outcome}", file=sys.stderr)
    if not args.quick:
        cases.append(run_whole(60.0))
        print(f"{cases[-1].name}: peak {cases[-1].peak_rss_mib} MiB, {cases[-1].outcome}", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "flood_memory.json").write_text(
        json.dumps({"call_timeout_s": timeout, "cases": [asdict(c) for c in cases]}, indent=2) + "\n",
        encoding="utf-8",
    )
    lines = ["| case | peak RSS (MiB) | seconds | ended with | transcript / report (MiB) |",
             "|---|---|---|---|---|"]
    lines += [f"| {c.name} | {c.peak_rss_mib} | {c.seconds} | {c.outcome} | {c.transcript_mib} |"
              for c in cases]
    (args.out / "flood_memory.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
