"""Does the gate flap? A baseline written under one seed and profile, gated under other seeds and profiles.

A CI gate that goes red on an unchanged fork gets switched off (issue 43). For each fork (patched copies of
npm:0.6.2's dist/index.js from tests/modified_servers/, single changes and one combining four), this runs
`python -m conformance run` under the baseline seed and profile, writes a baseline from that report with
`python -m conformance baseline` (reasons filled in, as a maintainer would), then gates the same build with
that baseline under each other seed (same profile) and under the other profile (a dev baseline gated by ci,
as the README's steps do). A verdict that is not "pass" on an unchanged fork is a flap. The `original` row
is the fork that undid its change (the unmodified original under the sorted-branches fork's package name),
gated with the sorted-branches fork's baseline: it must be flagged stale under every seed.

    python -m benchmarks.flap [--seeds 11,22,33] [--ci-seeds 11] [--forks sorted,multi,...] [--jobs 2]
                              [--out reports/benchmarks/flap] [--markdown]

Writes flap.json and flap.md in `--out` (the runs' folders in `--out`/runs); about 10 minutes with the
defaults and `--jobs 2` on a loaded 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Final

from conformance.gate.baseline import dump_baseline, parse_baseline
from conformance.gate.run_options import RunOptions
from tests.modified_servers.servers import Modification, load_modifications, materialize, target_spec

REPO: Final = Path(__file__).resolve().parents[1]
SORTED: Final = "branch-labels-sorted"

FORKS: Final[dict[str, tuple[str, ...]]] = {
    "sorted": (SORTED,),
    "cap-history": ("cap-history",),
    "revision-plain-label": ("revision-plain-label",),
    "branch-id-trimmed": ("branch-id-trimmed",),
    "revision-raises-total": ("revision-raises-total",),
    "total-clamped-at-hundred": ("total-clamped-at-hundred",),
    "multi": (SORTED, "server-version-one", "revision-plain-label", "cap-history"),
}
"""Each fork and the modifications it combines (tests/modified_servers/modifications.yaml)."""

ORIGINAL: Final = "original"
"""The original under the sorted fork's package name, gated with that fork's baseline: must be stale."""


@dataclass(frozen=True)
class Gated:
    """One gate run: its exit status and what its gate said."""

    fork: str
    profile: str
    seed: int
    exit_code: int
    new: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unconfirmed: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def cell(self) -> str:
        parts = [f"{name} {', '.join(ids)}" for name, ids in
                 (("new", self.new), ("stale", self.stale), ("changed", self.changed),
                  ("unconfirmed", self.unconfirmed)) if ids]
        if self.exit_code == 0 and not parts:
            return "pass"
        return f"exit {self.exit_code}" + (": " + "; ".join(parts) if parts else "")


def build(fork: str, folder: Path) -> str:
    """The fork's target spec: its modifications patched, in order, into one copy of the original."""
    mods = {m.id: m for m in load_modifications()}
    if fork == ORIGINAL:
        combined = Modification(id=SORTED, set="tuning", change="the original", patches=(), primary=())
    else:
        chosen = [mods[i] for i in FORKS[fork]]
        combined = Modification(id=chosen[0].id, set="tuning", change=" + ".join(m.change for m in chosen),
                                patches=tuple(p for m in chosen for p in m.patches), primary=())
    return target_spec(materialize(combined, folder / "server"))


def run(spec: str, profile: str, seed: int, out: Path, baseline: Path | None = None) -> tuple[int, float]:
    command = RunOptions(target=spec, profile=profile, seed=seed, out=out, baseline=baseline).command(
        sys.executable, local=True)
    started = time.monotonic()
    with open(out.with_suffix(".log"), "w", encoding="utf-8") as log:
        code = subprocess.run(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, check=False).returncode
    return code, time.monotonic() - started


def write_baseline(report: Path, dest: Path, fork: str) -> None:
    """`conformance baseline REPORT -o DEST`, then each TODO reason replaced as a maintainer would."""
    subprocess.run([sys.executable, "-m", "conformance", "baseline", str(report), "-o", str(dest)],
                   cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    baseline = parse_baseline(dest.read_text(encoding="utf-8"), str(dest))
    entries = [e.model_copy(update={"reason": f"intended: the {fork} fork's change"})
               for e in baseline.deviations]
    dest.write_text(dump_baseline(baseline.model_copy(update={"deviations": entries})), encoding="utf-8")


def gated(fork: str, spec: str, profile: str, seed: int, out: Path, baseline: Path) -> Gated:
    code, seconds = run(spec, profile, seed, out, baseline)
    try:
        gate = json.loads((out / "report.json").read_text(encoding="utf-8"))["gate"]
    except (OSError, ValueError, KeyError):
        return Gated(fork, profile, seed, code, seconds=round(seconds, 1))

    def ids(key: str) -> list[str]:
        return [str(row["record"]) for row in gate.get(key) or []]

    return Gated(fork, profile, seed, code, ids("unexpected"), ids("stale"), ids("changed"),
                 ids("unconfirmed"), round(seconds, 1))


def measure_fork(fork: str, root: Path, base_profile: str, base_seed: int, seeds: Sequence[int],
                 other: str, other_seeds: Sequence[int], baselines: dict[str, Path]) -> list[Gated]:
    folder = root / fork
    shutil.rmtree(folder, ignore_errors=True)  # a measurement starts clean: no report or baseline of the last
    folder.mkdir(parents=True)
    spec = build(fork, folder)
    if fork == ORIGINAL:
        baseline = baselines[SORTED]
    else:
        code, _ = run(spec, base_profile, base_seed, folder / "base")
        if code not in (0, 1):
            raise SystemExit(f"{fork}: the baseline run ended with exit {code} ({folder / 'base.log'})")
        baseline = folder / "baseline.yaml"
        write_baseline(folder / "base" / "report.json", baseline, fork)
    plan = [(base_profile, s) for s in seeds] + [(other, s) for s in other_seeds]
    return [gated(fork, spec, p, s, folder / f"{p}-{s}", baseline) for p, s in plan]


def table(rows: Sequence[Gated], columns: Sequence[tuple[str, int]], base: str) -> str:
    head = ["fork", *(f"{p} {s}" for p, s in columns), "flaps"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for fork in dict.fromkeys(r.fork for r in rows):
        cells = {(r.profile, r.seed): r for r in rows if r.fork == fork}
        want_pass = fork != ORIGINAL
        flaps = sum((cells[c].cell == "pass") != want_pass for c in columns if c in cells)
        lines.append("| " + " | ".join([fork, *(cells[c].cell if c in cells else "—" for c in columns),
                                        str(flaps)]) + " |")
    return (f"Baselines written under {base}; each cell is the gate's verdict with that baseline (the "
            "original should be stale, every fork should pass).\n\n" + "\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.flap", description=__doc__.split("\n\n")[0])
    parser.add_argument("--forks", default=",".join([*FORKS, ORIGINAL]),
                        help=f"comma-separated, of {', '.join([*FORKS, ORIGINAL])}")
    parser.add_argument("--profile", default="dev", choices=("dev", "ci"), help="the baseline's profile")
    parser.add_argument("--seed", type=int, default=1, help="the baseline's seed")
    parser.add_argument("--seeds", default="11,22,33", help="seeds gated under the baseline's profile")
    parser.add_argument("--other-seeds", default="11", help="seeds gated under the other profile")
    parser.add_argument("--jobs", type=int, default=2, help="forks measured at once")
    parser.add_argument("--out", type=Path, default=REPO / "reports" / "benchmarks" / "flap")
    args = parser.parse_args(argv)
    forks = [f.strip() for f in args.forks.split(",") if f.strip()]
    unknown = [f for f in forks if f not in FORKS and f != ORIGINAL]
    if unknown:
        parser.error(f"unknown forks: {', '.join(unknown)}")
    if ORIGINAL in forks and "sorted" not in forks:
        parser.error("the original is gated with the sorted fork's baseline: add `sorted`")
    other = "ci" if args.profile == "dev" else "dev"
    seeds = [int(s) for s in args.seeds.split(",") if s]
    other_seeds = [int(s) for s in args.other_seeds.split(",") if s]
    root = args.out.resolve() / "runs"
    baselines = {SORTED: root / "sorted" / "baseline.yaml"}
    started = time.monotonic()
    rows: list[Gated] = []
    firsts = [f for f in forks if f != ORIGINAL]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for found in pool.map(lambda f: measure_fork(f, root, args.profile, args.seed, seeds, other,
                                                     other_seeds, baselines), firsts):
            rows += found
    if ORIGINAL in forks:
        rows += measure_fork(ORIGINAL, root, args.profile, args.seed, seeds, other, other_seeds, baselines)
    columns = [(args.profile, s) for s in seeds] + [(other, s) for s in other_seeds]
    text = table(rows, columns, f"{args.profile} seed {args.seed}")
    seconds = round(time.monotonic() - started)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "flap.json").write_text(json.dumps({
        "baseline": {"profile": args.profile, "seed": args.seed}, "seconds": seconds,
        "runs": [asdict(r) | {"cell": r.cell} for r in rows]}, indent=2) + "\n", encoding="utf-8")
    (args.out / "flap.md").write_text(text + f"\n{seconds} s in all.\n", encoding="utf-8")
    print(text + f"\n{seconds} s in all.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
