"""Does a red run cost what a green one does? `run` against the original (green) beside departing targets.

A fork's CI is red for days while its maintainer writes the baseline (issue 46): a red run must stay within
2x the green run on the same machine. Each round runs every target once, the order rotating each round
(`rounds.py`), so the machine's load falls on all alike; every ratio is of one round's runs. Each run is
`python -m benchmarks.phases` around `RunOptions(...).command()` in a process of its own: its wall time from
outside (interpreter start included), its stages from the sampler (`phases.stage`: imports, preflight,
search, shrinking, retries, holds, signatures, evidence, report) and its processes and calls from its
report.json.
Beside each run, the server's own floor in the same round: the median seconds from spawn to initialize's
answer over `FLOOR_STARTS` processes and the median milliseconds of an accepted call (a later release that
starts slower makes every run of it slower, red or green: that share is the server's, not the red run's).

    python -m benchmarks.red_green [--rounds 1] [--profile dev] [--seed 1] [--only green,release,fork,port]
                                   [--target NAME=SPEC ...] [--tree before=DIR ...]
                                   [--out reports/benchmarks/red_green]

`--tree NAME=DIR` adds a checkout of the harness to measure beside this one (`after`): each round runs every
target under each tree, a target's runs under the trees one after another, so a before/after table comes
from one run under one load (its runs import the harness from DIR, profiled by this checkout's `phases.py`,
so both trees' processes are counted alike).
`--target NAME=SPEC` adds a red target: a target spec (`cmd:node …/dist/index.js`, a third-party fork) or
`mod:ID`, a modified server of tests/modified_servers written into the runs' folder.

Load: a single round on a shared machine meets load that swings from run to run (a fork read 2.07x the green
run of its round while its imports stage, the same work, took 2.27x green's; side by side at one load it was
0.95x-1.01x). Beside each ratio, two thermometers: the mean 1-minute load average sampled through the run
(`LOAD_EVERY`), and the imports stage over the green run's (the same harness imports in every run of one
tree: a run that got half the CPU takes twice as long there). Neither divides the ratio: two green runs of
one round at load 22-26 spent 9.2 and 15.8 s in their imports, so they say how far a ratio can be the
machine's, not how much.

Processes: every server process the run started, by the stage that started it (`phases.counted_starts`),
beside the report's `run.processes_started` (counted when the suite ends, before signatures and evidence).

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
LOAD_EVERY: Final = 2.0
"""Seconds between samples of the 1-minute load average while a run goes on."""


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
    """The report's count: the suite's processes only."""
    calls_made: int
    examples: int
    departures: int
    command: str
    starts: dict[str, int] = field(default_factory=dict)
    """Every server process the run started, by stage (`phases.counted_starts`)."""
    verdicts: dict[str, str] = field(default_factory=dict)
    """Each record's verdict, to hold the trees' runs of one target against each other."""
    causes: list[str] = field(default_factory=list)
    """Each root cause: its id, the records it leads and those it explains."""
    start_s: float = 0.0
    """The server's median spawn-to-initialized seconds, measured right after the run."""
    call_ms: float = 0.0
    """The server's median milliseconds per accepted call on one process."""
    load: float = 0.0
    """The mean 1-minute load average sampled while the run went on (`LOAD_EVERY`)."""


@dataclass
class Result:
    command: str
    profile: str
    seed: int
    rounds: int
    load: list[float]
    runs: list[Timed] = field(default_factory=list)


def modified(mod_id: str, scratch: Path) -> str:
    """The target spec of modified server `mod_id`, written into `scratch` (a patched copy of the
    original)."""
    mod = next((m for m in load_modifications() if m.id == mod_id), None)
    if mod is None:
        raise ValueError(f"no modified server {mod_id!r} in tests/modified_servers/modifications.yaml")
    return target_spec(materialize(mod, scratch / mod_id))


def contenders(scratch: Path, only: Sequence[str], extra: Sequence[tuple[str, str]] = ()) -> list[Contender]:
    """The targets, the fork written into `scratch` (a patched copy of the installed original), then `extra`
    (name, spec or `mod:ID`)."""
    found: list[Contender] = []
    for name in only:
        if name == "green":
            found.append(Contender(name, "npm:0.6.2"))
        elif name == "release":
            found.append(Contender(name, "npm:2026.8.31"))
        elif name == "fork":
            found.append(Contender(name, modified(FORK, scratch)))
        elif name == "port":
            found.append(Contender(name, f"cmd:{sys.executable} {PORTS} snake", "snake_case"))
    for name, spec in extra:
        found.append(Contender(name, modified(spec[4:], scratch) if spec.startswith("mod:") else spec))
    return found


def profiled(contender: Contender, profile: str, seed: int, out: Path, round_index: int,
             tree: tuple[str, Path] = ("after", REPO)) -> Timed:
    """One `run` under the phase sampler, in a process of its own with the harness of `tree` (a name and
    a checkout); exit 0 and 1 are finished runs, and so is 2, a gate stopped at its preflight (a third-party
    server offering no `sequentialthinking`): its maintainer waits for it too."""
    options = RunOptions(target=contender.target, profile=profile, seed=seed, out=out,
                         arguments_map=contender.arguments_map)
    argv = options.command(sys.executable, local=True)
    figures = out.parent / f"{out.name}.phases.json"
    profiler = str(Path(__file__).with_name("phases.py"))
    command = [sys.executable, "-c", _PROFILER, profiler, "--json", str(figures), "--", *argv[3:]]
    log = out.parent / f"{out.name}.log"
    started = time.perf_counter()
    loads: list[float] = []
    with log.open("wb") as handle:
        running = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, cwd=tree[1])
        exit_code = _sampling_load(running, loads)
    wall = time.perf_counter() - started
    found = json.loads(figures.read_text(encoding="utf-8"))
    if found["exit_code"] not in (0, 1, 2) or exit_code != 0:
        raise RuntimeError(f"{contender.name}: exit status {found['exit_code']} (log: {log})")
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    departures = sum(1 for rv in report["records"] if rv["verdict"] in ("deviates", "error"))
    return Timed(
        tree=tree[0], name=contender.name, round=round_index, wall_s=round(wall, 2),
        exit_code=found["exit_code"],
        stages=found["stages"], processes_started=report["run"]["processes_started"],
        calls_made=report["run"]["calls_made"], examples=report["summary"]["examples"],
        departures=departures, command=shlex.join(argv), starts=found.get("starts", {}),
        verdicts={rv["id"]: rv["verdict"] for rv in report["records"]},
        causes=[f"{c['id']}: {' '.join(c['records'])} / {' '.join(c.get('explains', []))}"
                for c in report["root_causes"]],
        load=round(statistics.fmean(loads), 2),
    )


def _sampling_load(running: subprocess.Popen[bytes], loads: list[float]) -> int:
    """Wait for `running`, appending the 1-minute load average every `LOAD_EVERY` seconds (once at least)."""
    while True:
        loads.append(os.getloadavg()[0])
        try:
            return running.wait(timeout=LOAD_EVERY)
        except subprocess.TimeoutExpired:
            continue


_PROFILER: Final = ("import runpy, sys; sys.argv = sys.argv[1:]; "
                     "runpy.run_path(sys.argv[0], run_name='__main__')")
"""This checkout's profiler run in a tree's folder: its imports (`benchmarks.harness_runs`, the harness) are
the tree's, its counting and sampling this one's."""


def floor(contender: Contender) -> tuple[float, float]:
    """The server's own cost: median seconds from spawn to initialize's answer, median ms per accepted
    call (0 for a server failing the call: a crashing or garbling one, whose red run is measured too)."""
    from conformance.core.arguments_map import renames_of
    from conformance.core.errors import HarnessError
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
            try:
                for _ in range(FLOOR_CALLS // FLOOR_STARTS):
                    driver.call_tool(TOOL, dict(PROBE_ARGUMENTS))
            except HarnessError:
                continue
            calls.append(1000 * (time.perf_counter() - began) / (FLOOR_CALLS // FLOOR_STARTS))
    return round(statistics.median(starts), 3), round(statistics.median(calls), 2) if calls else 0.0


def measure(only: Sequence[str], profile: str, seed: int, rounds: int, out: Path,
            trees: Sequence[tuple[str, Path]] = (("after", REPO),),
            extra: Sequence[tuple[str, str]] = ()) -> Result:
    runs_dir = (out / "runs").resolve()
    runs_dir.mkdir(parents=True, exist_ok=True)
    chosen = contenders(runs_dir, only, extra)
    result = Result(command=shlex.join(["python", "-m", "benchmarks.red_green", *sys.argv[1:]]),
                    profile=profile, seed=seed, rounds=rounds, load=[os.getloadavg()[0]])
    for round_index in range(rounds):
        # Each target's runs under every tree one after another: a before/after pair meets the same load
        # (the load drifts over the minutes a round takes).
        for contender in rotated(chosen, round_index):
            for tree in rotated(trees, round_index):
                out_dir = runs_dir / f"{tree[0]}-{contender.name}-{round_index}"
                timed = profiled(contender, profile, seed, out_dir.resolve(), round_index, tree)
                timed.start_s, timed.call_ms = floor(contender)
                result.runs.append(timed)
                print(f"round {round_index + 1}/{rounds} {tree[0]} {contender.name}: {timed.wall_s:.1f} s,"
                      f" exit {timed.exit_code}, {sum(timed.starts.values())} processes"
                      f" ({timed.processes_started} in the report), load"
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
    return {key: run.wall_s for key, run in _green_runs(result).items()}


def _green_runs(result: Result) -> dict[tuple[str, int], Timed]:
    return {(run.tree, run.round): run for run in result.runs if run.name == GREEN}


def markdown(result: Result) -> str:
    shown = [s for s in STAGES if any(run.stages.get(s, 0.0) >= 0.05 for run in result.runs)]
    lines = [
        "# Red runs beside the green run", "",
        f"`{result.command}`: profile {result.profile}, seed {result.seed}, {result.rounds} round(s), load"
        f" {result.load[0]:.1f} before and {result.load[-1]:.1f} after (1-minute average,"
        f" {os.cpu_count()} cores).",
        "Seconds per stage are sampled (`benchmarks/phases.py`); the wall time is measured outside the run.",
        "",
        "| round | tree | target | exit | wall s | × green | load | imports × green | server start s |"
        " server call ms | processes | in report | calls | departures | " + " | ".join(shown) + " |",
        "| --- " * 14 + "| " + " | ".join("---" for _ in shown) + " |",
    ]
    green = _green_runs(result)
    names = list(dict.fromkeys(run.name for run in result.runs))
    for run in sorted(result.runs, key=lambda r: (r.round, r.tree, names.index(r.name))):
        key = (run.tree, run.round)
        times = f"{run.wall_s / green[key].wall_s:.2f}" if key in green else "-"
        imports = green[key].stages.get("imports", 0.0) if key in green else 0.0
        slower = f"{run.stages.get('imports', 0.0) / imports:.2f}" if imports > 0 else "-"
        lines.append(
            f"| {run.round + 1} | {run.tree} | {run.name} | {run.exit_code} | {run.wall_s:.1f} | {times}"
            f" | {run.load:.1f} | {slower}"
            f" | {run.start_s:.2f} | {run.call_ms:.1f} | {sum(run.starts.values())} | {run.processes_started}"
            f" | {run.calls_made} | {run.departures} | "
            + " | ".join(f"{run.stages.get(s, 0.0):.1f}" for s in shown) + " |")
    lines += ["", "Server processes started, by stage:", "", "| round | tree | target | "
              + " | ".join(STAGES) + " |", "| --- " * (3 + len(STAGES)) + "|"]
    for run in sorted(result.runs, key=lambda r: (r.round, r.tree, names.index(r.name))):
        lines.append(f"| {run.round + 1} | {run.tree} | {run.name} | "
                     + " | ".join(str(run.starts.get(s, 0)) for s in STAGES) + " |")
    lines += _beside(result, names)
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


def _beside(result: Result, names: Sequence[str]) -> list[str]:
    """Each target's run under each other tree beside `after`'s of the same round: wall time and processes,
    and whether the verdicts and root causes are the same."""
    after = {(run.round, run.name): run for run in result.runs if run.tree == "after"}
    others = [run for run in result.runs if run.tree != "after" and (run.round, run.name) in after]
    if not others:
        return []
    lines = ["", "Each tree beside `after`, same round:", "",
             "| round | target | tree | wall s → after | × | processes → after | same verdicts"
             " | same root causes |",
             "| --- " * 8 + "|"]
    for run in sorted(others, key=lambda r: (r.round, names.index(r.name), r.tree)):
        new = after[(run.round, run.name)]
        lines.append(
            f"| {run.round + 1} | {run.name} | {run.tree} | {run.wall_s:.1f} → {new.wall_s:.1f}"
            f" | {new.wall_s / run.wall_s:.2f} | {sum(run.starts.values())} → {sum(new.starts.values())}"
            f" | {'yes' if run.verdicts == new.verdicts else 'NO'}"
            f" | {'yes' if run.causes == new.causes else 'NO'} |")
    return lines


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
    parser.add_argument("--target", action="append", default=[], metavar="NAME=SPEC",
                        help="another red target: a spec, or mod:ID for a modified server")
    args = parser.parse_args(argv)
    trees: list[tuple[str, Path]] = [("after", REPO)]
    for given in args.tree:
        name, _, folder = given.partition("=")
        if not name or not folder or not (Path(folder) / "conformance").is_dir():
            parser.error(f"--tree wants NAME=DIR, a checkout of the harness: {given!r}")
        trees.append((name, Path(folder).resolve()))
    only = [name.strip() for name in args.only.split(",") if name.strip()]
    if unknown := [name for name in only if name not in TARGET_NAMES]:
        parser.error(f"targets are {', '.join(TARGET_NAMES)}; got {', '.join(unknown)}")
    extra: list[tuple[str, str]] = []
    for given in args.target:
        name, _, spec = given.partition("=")
        if not name or not spec or name in (*only, *(n for n, _ in extra)):
            parser.error(f"--target wants NAME=SPEC with a name of its own: {given!r}")
        extra.append((name, spec))
    out: Path = args.out
    result = measure(only, args.profile, args.seed, max(1, args.rounds), out, trees, extra)
    (out / "red_green.json").write_text(json.dumps(asdict(result), indent=2) + "\n", encoding="utf-8")
    text = markdown(result)
    (out / "red_green.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
