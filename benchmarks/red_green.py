"""Does a red run cost what a green one does? `run` against the original (green) beside departing targets.

A fork's CI is red for days while its maintainer writes the baseline (issue 46): a red run must stay within
2x the green run on the same machine. Each round runs every target once, the order rotating each round
(`rounds.py`), so the machine's load falls on all alike; every ratio is of one round's runs. Each run is
`python -m benchmarks.phases` around `RunOptions(...).command()` in a process of its own: its wall time from
outside (interpreter start included), its stages from the sampler (`phases.stage`: imports, preflight,
search, shrinking, retries, signatures, evidence, report) and its processes and calls from its report.json.
Beside each run, the server's own floor in the same round: the median seconds from spawn to initialize's
answer over `FLOOR_STARTS` processes and the median milliseconds of an accepted call (a later release that
starts slower makes every run of it slower, red or green: that share is the server's, not the red run's).

    python -m benchmarks.red_green [--rounds 1] [--profile dev] [--seed 1] [--only green,release,fork,port]
                                   [--tree before=DIR ...] [--out reports/benchmarks/red_green]

`--tree NAME=DIR` adds a checkout of the harness to measure beside this one (`after`): each round runs every
target under each tree, so a before/after table comes from one run under one load (DIR needs this
benchmark's `phases.py`; its runs import the harness from DIR).

Targets: green npm:0.6.2; release npm:2026.8.31; fork `fork-hardened-store` (held-out-multi-1: four
changes on the original, tests/modified_servers/); port tests/servers/ports.py snake with
`--arguments-map snake_case`.
Writes red_green.json and red_green.md in `--out` (the runs' folders in `--out`/runs).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Final

from benchmarks.phases import STAGES
from benchmarks.rounds import rotated
from conformance.gate.run_options import RunOptions
from tests.modified_servers.servers import load_modifications, materialize, target_spec

REPO: Final = Path(__file__).resolve().parents[1]
PORTS: Final = REPO / "tests" / "servers" / "ports.py"
FORK: Final = "fork-hardened-store"
GREEN: Final = "green"
TARGET_NAMES: Final = ("green", "release", "fork", "port")
FLOOR_STARTS: Final = 5
FLOOR_CALLS: Final = 50
RED_LIMIT: Final = 2.0
"""A red run's wall time over the green run's of the same round, at most (issue 46)."""


@dataclass(frozen=True)
class Contender:
    name: str
    target: str
    arguments_map: str | None = None


@dataclass
class Timed:
    """One profiled run: wall time from outside, its stages, what its report counted."""

    tree: str
    name: str
    round: int
    wall_s: float
    exit_code: int
    stages: dict[str, float]
    processes_started: int
    calls_made: int
    examples: int
    departures: int
    command: str
    start_s: float = 0.0
    """The server's median spawn-to-initialized seconds, measured right after the run."""
    call_ms: float = 0.0
    """The server's median milliseconds per accepted call on one process."""


@dataclass
class Result:
    command: str
    profile: str
    seed: int
    rounds: int
    load: list[float]
    runs: list[Timed] = field(default_factory=list)


def contenders(scratch: Path, only: Sequence[str]) -> list[Contender]:
    """The targets, the fork written into `scratch` (a patched copy of the installed original)."""
    found: list[Contender] = []
    for name in only:
        if name == "green":
            found.append(Contender(name, "npm:0.6.2"))
        elif name == "release":
            found.append(Contender(name, "npm:2026.8.31"))
        elif name == "fork":
            mod = next(m for m in load_modifications() if m.id == FORK)
            found.append(Contender(name, target_spec(materialize(mod, scratch / "fork"))))
        elif name == "port":
            found.append(Contender(name, f"cmd:{sys.executable} {PORTS} snake", "snake_case"))
    return found


def profiled(contender: Contender, profile: str, seed: int, out: Path, round_index: int,
             tree: tuple[str, Path] = ("after", REPO)) -> Timed:
    """One `run` under the phase sampler, in a process of its own with the harness of `tree` (a name and
    a checkout); exit 0 and 1 are finished runs."""
    options = RunOptions(target=contender.target, profile=profile, seed=seed, out=out,
                         arguments_map=contender.arguments_map)
    argv = options.command(sys.executable, local=True)
    figures = out.parent / f"{out.name}.phases.json"
    command = [sys.executable, "-m", "benchmarks.phases", "--json", str(figures), "--", *argv[3:]]
    log = out.parent / f"{out.name}.log"
    started = time.perf_counter()
    with log.open("wb") as handle:
        exit_code = subprocess.call(command, stdout=handle, stderr=subprocess.STDOUT, cwd=tree[1])
    wall = time.perf_counter() - started
    found = json.loads(figures.read_text(encoding="utf-8"))
    if found["exit_code"] not in (0, 1) or exit_code != 0:
        raise RuntimeError(f"{contender.name}: exit status {found['exit_code']} (log: {log})")
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    departures = sum(1 for rv in report["records"] if rv["verdict"] in ("deviates", "error"))
    return Timed(
        tree=tree[0], name=contender.name, round=round_index, wall_s=round(wall, 2),
        exit_code=found["exit_code"],
        stages=found["stages"], processes_started=report["run"]["processes_started"],
        calls_made=report["run"]["calls_made"], examples=report["summary"]["examples"],
        departures=departures, command=shlex.join(argv),
    )


def floor(contender: Contender) -> tuple[float, float]:
    """The server's own cost: median seconds from spawn to initialize's answer, median ms per accepted
    call."""
    from conformance.core.arguments_map import renames_of
    from conformance.core.protocol import PROBE_ARGUMENTS, PROTOCOL_VERSION, TOOL
    from conformance.targets.specs import resolve_target

    target = replace(resolve_target(contender.target), renames=renames_of(contender.arguments_map))
    starts: list[float] = []
    calls: list[float] = []
    for _ in range(FLOOR_STARTS):
        began = time.perf_counter()
        with target.wire(timeout=30.0) as driver:
            driver.initialize(PROTOCOL_VERSION)
            starts.append(time.perf_counter() - began)
            began = time.perf_counter()
            for _ in range(FLOOR_CALLS // FLOOR_STARTS):
                driver.call_tool(TOOL, dict(PROBE_ARGUMENTS))
            calls.append(1000 * (time.perf_counter() - began) / (FLOOR_CALLS // FLOOR_STARTS))
    return round(statistics.median(starts), 3), round(statistics.median(calls), 2)


def measure(only: Sequence[str], profile: str, seed: int, rounds: int, out: Path,
            trees: Sequence[tuple[str, Path]] = (("after", REPO),)) -> Result:
    runs_dir = (out / "runs").resolve()
    runs_dir.mkdir(parents=True, exist_ok=True)
    chosen = contenders(runs_dir, only)
    result = Result(command=shlex.join(["python", "-m", "benchmarks.red_green", *sys.argv[1:]]),
                    profile=profile, seed=seed, rounds=rounds, load=[os.getloadavg()[0]])
    for round_index in range(rounds):
        for tree in rotated(trees, round_index):
            for contender in rotated(chosen, round_index):
                out_dir = runs_dir / f"{tree[0]}-{contender.name}-{round_index}"
                timed = profiled(contender, profile, seed, out_dir.resolve(), round_index, tree)
                timed.start_s, timed.call_ms = floor(contender)
                result.runs.append(timed)
                print(f"round {round_index + 1}/{rounds} {tree[0]} {contender.name}: {timed.wall_s:.1f} s,"
                      f" exit {timed.exit_code}, {timed.processes_started} processes, load"
                      f" {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    result.load.append(os.getloadavg()[0])
    return result


def ratios(result: Result, tree: str = "after") -> dict[str, list[float]]:
    """Each red target's wall time over the green run's of the same round and tree."""
    green = _greens(result)
    found: dict[str, list[float]] = {}
    for run in result.runs:
        if run.tree == tree and run.name != GREEN and (run.tree, run.round) in green:
            found.setdefault(run.name, []).append(round(run.wall_s / green[(run.tree, run.round)], 2))
    return found


def _greens(result: Result) -> dict[tuple[str, int], float]:
    return {(run.tree, run.round): run.wall_s for run in result.runs if run.name == GREEN}


def markdown(result: Result) -> str:
    shown = [s for s in STAGES if any(run.stages.get(s, 0.0) >= 0.05 for run in result.runs)]
    lines = [
        "# Red runs beside the green run", "",
        f"`{result.command}`: profile {result.profile}, seed {result.seed}, {result.rounds} round(s), load"
        f" {result.load[0]:.1f} before and {result.load[-1]:.1f} after (1-minute average,"
        f" {os.cpu_count()} cores).",
        "Seconds per stage are sampled (`benchmarks/phases.py`); the wall time is measured outside the run.",
        "",
        "| round | tree | target | exit | wall s | × green | server start s | server call ms | processes |"
        " calls | departures | " + " | ".join(shown) + " |",
        "| --- " * 11 + "| " + " | ".join("---" for _ in shown) + " |",
    ]
    green = _greens(result)
    for run in sorted(result.runs, key=lambda r: (r.round, r.tree, TARGET_NAMES.index(r.name))):
        key = (run.tree, run.round)
        times = f"{run.wall_s / green[key]:.2f}" if key in green else "-"
        lines.append(
            f"| {run.round + 1} | {run.tree} | {run.name} | {run.exit_code} | {run.wall_s:.1f} | {times}"
            f" | {run.start_s:.2f} | {run.call_ms:.1f} | {run.processes_started} | {run.calls_made}"
            f" | {run.departures} | "
            + " | ".join(f"{run.stages.get(s, 0.0):.1f}" for s in shown) + " |")
    lines += ["", "Commands (each under `python -m benchmarks.phases --json FILE --`):", ""]
    lines += sorted({f"- {run.tree} {run.name}: `{run.command}`" for run in result.runs})
    for tree in sorted({run.tree for run in result.runs}):
        found = ratios(result, tree)
        if found:
            worst = max(statistics.median(v) for v in found.values())
            each = ", ".join(f"{name} {statistics.median(v):.2f}" for name, v in sorted(found.items()))
            lines += ["", f"{tree}: median ratio to green {each}; worst {worst:.2f} (goal: at most"
                      f" {RED_LIMIT:.1f})."]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.red_green", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--profile", default="dev")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default=",".join(TARGET_NAMES), help="targets: green,release,fork,port")
    parser.add_argument("--out", type=Path, default=REPO / "reports" / "benchmarks" / "red_green")
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR",
                        help="another checkout to measure beside this one (`after`), e.g. before=../old")
    args = parser.parse_args(argv)
    trees: list[tuple[str, Path]] = [("after", REPO)]
    for given in args.tree:
        name, _, folder = given.partition("=")
        if not name or not folder or not (Path(folder) / "benchmarks" / "phases.py").is_file():
            parser.error(f"--tree wants NAME=DIR, a checkout with benchmarks/phases.py: {given!r}")
        trees.append((name, Path(folder).resolve()))
    only = [name.strip() for name in args.only.split(",") if name.strip()]
    if unknown := [name for name in only if name not in TARGET_NAMES]:
        parser.error(f"targets are {', '.join(TARGET_NAMES)}; got {', '.join(unknown)}")
    out: Path = args.out
    result = measure(only, args.profile, args.seed, max(1, args.rounds), out, trees)
    (out / "red_green.json").write_text(json.dumps(asdict(result), indent=2) + "\n", encoding="utf-8")
    text = markdown(result)
    (out / "red_green.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
