"""The physical floor of a conformance run and what the harness spends above it, in one run.

For each target the server alone is measured first, driven by a minimal client (one blocking write and one
blocking readline per call, stderr drained: `bench_drivers.BareLoop`): its cold start (spawn until the
initialize answer is read, median of `--starts`) and, for comparison, its sequential round-trip rate on one
fixed small call (median of three batches of `--calls`). Then, per profile, `python -m conformance run`
against it (a fresh process, as a user pays it), whose report says how many calls it sent and how many
server processes it started. Then the run's own answered requests, read from its transcript, are replayed in
order by the same minimal client on fresh processes, one per process of the run (benchmarks/replay.py): the
server's time on the very calls the run made. The floor is what the server alone would need for that run:

    floor = replay time of the run's answered requests + processes started × cold start
    fixed-call floor = calls sent / fixed-call round trips per second + processes started × cold start

and the ratio is the run's wall time over the floor. Beside it, the least wall the harness could reach with
the same examples: the replay's time plus the run's examples times hypothesis' own CPU per example, measured
in a child process on a test that does nothing with one drawn integer (`benchmarks/generation.py`). The
suite's loop is sequential (an example is generated, its calls go out, each answer is awaited, it is
checked, and only then is the next generated), so no run of those examples with hypothesis takes less. It
can be below the floor, which counts every process's start in full while the suite starts its spares as it
works.

The fixed call understates the floor (a run's calls cost the server more: a shared process's growing state,
large answers, error paths, large thoughts); its column stays for comparison. Every figure of a row comes
from the same minutes of the same machine, so load moves both sides alike; a shared machine still makes
single rows noisy (use `--repeat`).

    python -m benchmarks.floor [--targets npm:0.6.2,reference] [--profiles dev,ci] [--seed 1]
                               [--repeat 1] [--phases] [--json FILE]

`--phases` also profiles the `ci` run of the first target in this process (benchmarks/phases.py: where the
harness's own time goes, per phase).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

from benchmarks import phases
from benchmarks.bench_drivers import BareLoop, ServerDidNotStart, batch_rate
from benchmarks.harness_runs import RunConfig, conformance_run
from benchmarks.replay import Extracted, Replay, read_transcript, replay
from conformance.suite.plugin import slug
from conformance.targets.specs import Target, resolve_target

WARMUP: Final = 200


@dataclass(frozen=True)
class Server:
    """The server alone, driven by the minimal client."""

    target: str
    cold_start_s: float
    calls_per_s: float


@dataclass(frozen=True)
class Row:
    target: str
    profile: str
    calls: int
    processes: int
    cold_start_s: float
    calls_per_s: float
    fixed_floor_s: float
    replayed: int
    replay_s: float
    floor_s: float
    wall_s: float
    harness_cpu_s: float
    exit_code: int
    replay_processes: int = 1
    guessed: int = 0
    """Replayed requests whose process was guessed (benchmarks/replay.py says how)."""
    replay_note: str = ""
    """Empty when every answered request of the run was replayed; else what was not, and why."""
    examples: int = 0
    engine_s_per_example: float = 0.0
    """Hypothesis' own CPU per example (`engine_cost_in_child`), measured in the same minutes as the run."""

    @property
    def ratio(self) -> float:
        return self.wall_s / self.floor_s

    @property
    def engine_s(self) -> float:
        """What hypothesis alone spends on the run's examples, before any test does anything."""
        return self.examples * self.engine_s_per_example

    @property
    def least_ratio(self) -> float:
        """The least wall the sequential loop allows for these examples (the server's time on the run's calls
        plus hypothesis' own), over the floor."""
        return (self.replay_s + self.engine_s) / self.floor_s

    @property
    def fixed_ratio(self) -> float:
        return self.wall_s / self.fixed_floor_s


def server_alone(target: Target, starts: int, calls: int) -> Server:
    """Cold starts and the round-trip rate of `target`, nothing of the harness in between."""
    cold: list[float] = []
    for _ in range(starts):
        began = time.perf_counter()
        loop = BareLoop(target, drain_stderr=True)
        cold.append(time.perf_counter() - began)
        loop.close()
    loop = BareLoop(target, drain_stderr=True)
    try:
        batch_rate(loop.call, WARMUP)
        rate = statistics.median(batch_rate(loop.call, calls) for _ in range(3))
    finally:
        loop.close()
    return Server(target.spec, statistics.median(cold), rate)


def engine_cost_in_child(storage: Path) -> float:
    """Hypothesis' own CPU per example (`generation.cost_per_example` of no strategy: one drawn integer) in a
    fresh interpreter whose hypothesis keeps its files in `storage`: this process's
    hypothesis stays unused until a profiled run sets where its files go (and it writes nothing into the
    working folder)."""
    code = "from benchmarks.generation import cost_per_example; print(cost_per_example())"
    env = {**os.environ, "HYPOTHESIS_STORAGE_DIRECTORY": str(storage)}
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1], env=env,
                          capture_output=True, text=True, timeout=600, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def floor_seconds(server: Server, calls: int, processes: int) -> float:
    """What the server alone needs for `calls` fixed small calls and `processes` starts."""
    return calls / server.calls_per_s + processes * server.cold_start_s


def _replay_note(extracted: Extracted, done: Replay) -> str:
    parts = []
    if extracted.truncated:
        parts.append("transcript longer than the replay reads")
    if extracted.skipped_lines:
        parts.append(f"{extracted.skipped_lines} transcript lines unreadable")
    if not done.completed:
        parts.append(f"replay stopped after {done.frames} of {len(extracted.frames)}: {done.reason}")
    return "; ".join(parts)


def replay_run(target: Target, transcript: Path) -> tuple[Extracted, Replay]:
    """The run's answered requests (nothing when its transcript is missing) replayed on fresh processes."""
    extracted = read_transcript(transcript) if transcript.is_file() else Extracted([], 0, 0, False)
    return extracted, replay(target, extracted.frames)


def measure_row(target: Target, server: Server, profile: str, seed: int, out: Path,
                engine_s_per_example: float = 0.0) -> Row:
    sample = conformance_run(RunConfig(server.target, profile), seed, out)
    run = sample.report.run
    extracted, done = replay_run(target, out / "transcripts" / f"{slug(target.spec)}.jsonl")
    note = _replay_note(extracted, done)
    if not extracted.frames:
        note = "no answered request in the run's transcript" + (f"; {note}" if note else "")
    starts = run.processes_started * server.cold_start_s
    return Row(server.target, profile, run.calls_made, run.processes_started, server.cold_start_s,
               server.calls_per_s, floor_seconds(server, run.calls_made, run.processes_started),
               done.frames, done.seconds, done.seconds + starts, sample.wall_s, sample.cpu_s,
               sample.exit_code, done.processes, extracted.guessed, note, sample.report.summary.examples,
               engine_s_per_example)


def render(rows: Sequence[Row]) -> str:
    lines = [
        "| target | profile | calls sent | replayed | processes | server start | fixed call | run's calls "
        "| fixed-call floor | floor | wall | wall / fixed-call floor | wall / floor "
        "| run's CPU (harness + servers) | examples | hypothesis alone | least wall / floor |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        replay_rate = row.replayed / row.replay_s if row.replay_s > 0 else 0.0
        mark = " *" if row.replay_note else ""
        lines.append(
            f"| {row.target} | {row.profile} | {row.calls} | {row.replayed}{mark} | {row.processes}"
            f" | {row.cold_start_s * 1000:.0f} ms | {row.calls_per_s:.0f}/s | {replay_rate:.0f}/s"
            f" | {row.fixed_floor_s:.1f} s | {row.floor_s:.1f} s | {row.wall_s:.1f} s"
            f" | {row.fixed_ratio:.2f} | {row.ratio:.2f} | {row.harness_cpu_s:.1f} s | {row.examples}"
            f" | {row.engine_s:.1f} s | {row.least_ratio:.2f} |"
        )
    lines += [f"* {row.target} {row.profile}: {row.replay_note}" for row in rows if row.replay_note]
    for per_example in dict.fromkeys(row.engine_s_per_example for row in rows):
        lines.append(f"hypothesis alone: the run's examples × {per_example * 1000:.2f} ms, hypothesis' own"
                     " CPU per example (a test that does nothing with one drawn integer, measured beside the"
                     " runs); least wall: the replay plus that, the least a run of these examples can take")
    lines += [f"{row.target} {row.profile}: replayed on {row.replay_processes} fresh processes, one per"
              f" process of the run's transcript; {row.guessed} requests went to a guessed process"
              for row in rows]
    walls = {(row.target, row.profile): row.wall_s for row in rows}
    for profile in dict.fromkeys(row.profile for row in rows):
        reference, original = walls.get(("reference", profile)), walls.get(("npm:0.6.2", profile))
        if reference is not None and original is not None:
            lines.append(f"\n{profile}: the run on the reference takes {reference / original:.2f}×"
                         " the same run on npm:0.6.2")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.floor", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--targets", default="npm:0.6.2,reference", help="comma-separated target specs")
    parser.add_argument("--profiles", default="dev,ci", help="comma-separated profiles")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1, help="rows per target and profile")
    parser.add_argument("--starts", type=int, default=5, help="cold starts measured per target")
    parser.add_argument("--calls", type=int, default=2000, help="round trips per rate batch")
    parser.add_argument("--phases", action="store_true", help="also profile the first target's ci run")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the figures here")
    args = parser.parse_args(argv)
    targets = [resolve_target(spec) for spec in args.targets.split(",") if spec]
    profiles = [p for p in args.profiles.split(",") if p]
    rows: list[Row] = []
    profiled: phases.Profile | None = None
    with tempfile.TemporaryDirectory(prefix="seqthink-floor-") as tmp:
        engine = engine_cost_in_child(Path(tmp) / "hypothesis")
        print(f"hypothesis' own CPU per example: {engine * 1000:.2f} ms", file=sys.stderr, flush=True)
        for repetition in range(args.repeat):
            for target in targets:
                try:
                    server = server_alone(target, args.starts, args.calls)
                except ServerDidNotStart as error:
                    print(f"benchmarks.floor: {error}", file=sys.stderr)
                    return 2
                for profile in profiles:
                    out = Path(tmp) / f"{len(rows)}"
                    rows.append(measure_row(target, server, profile, args.seed + repetition, out, engine))
                    print(render(rows[-1:]).splitlines()[2], file=sys.stderr, flush=True)
        if args.phases:
            argv_run = ["run", "--target", targets[0].spec, "--profile", "ci", "--seed", str(args.seed),
                        "--out", str(Path(tmp) / "phases")]
            profiled = phases.profile(argv_run)
    print(render(rows))
    if profiled is not None:
        print("\n" + phases.render(profiled))
    if args.json is not None:
        table = [{**asdict(row), "ratio": row.ratio, "fixed_ratio": row.fixed_ratio, "engine_s": row.engine_s,
                  "least_ratio": row.least_ratio} for row in rows]
        figures = {"rows": table,
                   "phases": profiled.to_json() if profiled is not None else None}
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
