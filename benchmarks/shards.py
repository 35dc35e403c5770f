"""What `run --shard I/N` buys: the wall time of a run split over N machines, and the same verdicts.

Each shard runs alone, one after the other, so each has this whole machine, as each job of a CI matrix
has its own: a matrix's wall time is its slowest shard's (plus the merge), its cost the sum of all shards'.
The shards of each N are then joined with `run --merge`, and the merged record verdicts and gate are
compared with the unsharded run of the same seed.

    python -m benchmarks.shards [--target npm:0.6.2] [--profile thorough] [--counts 1,2,4] [--seed 1]
                                [--json FILE]

The thorough profile takes about 20 minutes unsharded on 2 cores; `--profile ci` shows the same shape in
a few minutes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmarks.harness_runs import RunConfig, RunSample, conformance_run, gate_key, verdicts
from conformance.core.identity import ShardIdentity
from conformance.report.json import load_report
from conformance.report.model import Report


@dataclass(frozen=True)
class Split:
    """One N: every shard's wall time, the merge's, and whether the merged verdicts are the single run's."""

    count: int
    shard_walls_s: tuple[float, ...]
    merge_s: float
    same_verdicts: bool
    same_gate: bool
    shard_tests_s: tuple[float, ...]
    """Each shard's tests' own durations summed, as its report recorded them: the deal's balance without
    the fixed cost every run pays."""

    @property
    def matrix_wall_s(self) -> float:
        return max(self.shard_walls_s) + self.merge_s

    @property
    def machine_s(self) -> float:
        return sum(self.shard_walls_s) + self.merge_s

    @property
    def imbalance(self) -> float:
        """The slowest shard over the mean shard: 1 when the deal is even."""
        return _over_mean(self.shard_walls_s)

    @property
    def tests_imbalance(self) -> float:
        return _over_mean(self.shard_tests_s)


def _over_mean(values: Sequence[float]) -> float:
    return max(values) * len(values) / sum(values) if sum(values) > 0 else 1.0


def tests_s(report: Report) -> float:
    """The run's tests' durations summed (a test evidencing several records counted once)."""
    return sum(test.duration for test in report.tests_once().values())


def _merge(folders: Sequence[Path], out: Path) -> tuple[Report, float]:
    started = time.perf_counter()
    command = [sys.executable, "-m", "conformance", "run", "--merge", *map(str, folders), "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"merge exited {done.returncode}: {done.stderr[-1500:]}")
    return load_report(out / "report.json"), time.perf_counter() - started


def whole_run(target: str, profile: str, seed: int, scratch: Path) -> RunSample:
    sample = conformance_run(RunConfig(target, profile), seed, scratch / "n1")
    print(f"{target} {profile} unsharded: {sample.wall_s:.1f} s", file=sys.stderr, flush=True)
    return sample


def split(target: str, profile: str, seed: int, count: int, whole: RunSample, scratch: Path) -> Split:
    """The N shards of the run, each alone, then their merge, judged against the unsharded run."""
    folders: list[Path] = []
    walls: list[float] = []
    spent: list[float] = []
    for index in range(1, count + 1):
        out = scratch / f"n{count}-shard{index}"
        sample = conformance_run(RunConfig(target, profile, shard=ShardIdentity(index=index, count=count)),
                                 seed, out)
        print(f"{target} {profile} shard {index}/{count}: {sample.wall_s:.1f} s", file=sys.stderr, flush=True)
        folders.append(out)
        walls.append(sample.wall_s)
        spent.append(tests_s(sample.report))
    merged, merge_s = _merge(folders, scratch / f"n{count}-merged")
    return Split(count, tuple(walls), merge_s, verdicts(merged) == whole.verdicts,
                 gate_key(merged) == gate_key(whole.report), tuple(spent))


def render(target: str, profile: str, splits: Sequence[Split]) -> str:
    one = splits[0].matrix_wall_s
    lines = [f"`{target}`, profile `{profile}`: each shard alone on this machine, one after the other", "",
             "| jobs | slowest shard s | mean shard s | slowest / mean | tests' slowest / mean | merge s "
             "| matrix wall s | speed-up | machine time s | shards s | merged verdicts = single run | gate |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for s in splits:
        walls = ", ".join(f"{w:.0f}" for w in s.shard_walls_s)
        same, gate = ("yes" if s.same_verdicts else "**no**"), ("same" if s.same_gate else "**differs**")
        mean = sum(s.shard_walls_s) / len(s.shard_walls_s)
        lines.append(f"| {s.count} | {max(s.shard_walls_s):.1f} | {mean:.1f} | {s.imbalance:.2f} "
                     f"| {s.tests_imbalance:.2f} | {s.merge_s:.1f} | {s.matrix_wall_s:.1f} "
                     f"| {one / s.matrix_wall_s:.2f}× | {s.machine_s:.0f} | {walls} "
                     f"| {same} | {gate} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.shards", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="npm:0.6.2")
    parser.add_argument("--profile", default="thorough")
    parser.add_argument("--counts", default="2,4", help="comma-separated shard counts (the unsharded run "
                        "always runs first)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the figures here")
    args = parser.parse_args(argv)
    counts = sorted({int(c) for c in args.counts.split(",") if c} - {1})
    with tempfile.TemporaryDirectory(prefix="seqthink-shards-") as tmp:
        whole = whole_run(args.target, args.profile, args.seed, Path(tmp))
        splits = [Split(1, (whole.wall_s,), 0.0, True, True, (tests_s(whole.report),))]
        splits += [split(args.target, args.profile, args.seed, n, whole, Path(tmp)) for n in counts]
    print(render(args.target, args.profile, splits))
    if args.json is not None:
        figures = [{**asdict(s), "matrix_wall_s": s.matrix_wall_s, "machine_s": s.machine_s,
                    "imbalance": s.imbalance, "tests_imbalance": s.tests_imbalance} for s in splits]
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
