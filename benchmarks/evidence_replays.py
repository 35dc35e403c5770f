"""What a red run's evidence stage costs, alone: one pre-evidence report through each tree's `with_evidence`.

The evidence stage (`gate/evidence.py`) replays the departures' sequences on fresh processes of the target
and of the original; in a whole red run its share is sampled among the search's noise (`red_green.py`).
Here the same report, kept as the run handed it to `with_evidence` (`--pre`, written by `capture` below),
goes through each tree's `with_evidence` in a process of its own, the trees alternating round by round under
one load: wall seconds, server processes started, and whether the evidenced reports say the same (root
causes, each record's cause, evidence, differences). No figure is asserted on.

    python -m benchmarks.evidence_replays capture -- run --target SPEC --profile dev --seed 1 --out DIR
    python -m benchmarks.evidence_replays --pre DIR.pre.json --target SPEC [--arguments-map NAME]
                                          [--tree before=CHECKOUT ...] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Final, cast

from benchmarks.rounds import rotated
from conformance.gate.canonical import without_volatile

REPO: Final = Path(__file__).resolve().parents[1]

_ONE: Final = r"""
import dataclasses, json, sys, time
from pathlib import Path
from conformance.core.arguments_map import renames_of
from conformance.drivers import process
from conformance.gate import evidence
from conformance.report.model import Report
from conformance.targets.specs import default_cache_dir, resolve_target

pre, spec, renames, out = sys.argv[1:5]
report = Report.model_validate_json(Path(pre).read_text(encoding="utf-8"))
target = dataclasses.replace(resolve_target(spec), renames=renames_of(renames or None))
original = evidence.original_target(default_cache_dir())
before = process.processes_started()
began = time.perf_counter()
done = evidence.with_evidence(report, target, original, 10.0)
wall = time.perf_counter() - began
Path(out).write_text(done.model_dump_json(), encoding="utf-8")
print(json.dumps({"wall_s": round(wall, 2), "processes": process.processes_started() - before}))
"""
"""One report through the tree's `with_evidence` (run with the tree as the working folder: its harness)."""

_CAPTURE: Final = r"""
import runpy, sys
import conformance.gate.evidence as ev
real = ev.with_evidence
def keep(report, target, original, timeout, replays=None):
    out = sys.argv[sys.argv.index("--out") + 1]
    with open(out + ".pre.json", "w", encoding="utf-8") as handle:
        handle.write(report.model_dump_json())
    return real(report, target, original, timeout, replays=replays)
ev.with_evidence = keep
sys.argv = ["conformance", *sys.argv[1:]]
runpy.run_module("conformance", run_name="__main__")
"""
"""A `conformance run` that writes the report `with_evidence` is handed to `--out`'s path + `.pre.json`."""


def said(report_json: str) -> dict[str, object]:
    """What a report says of its departures: the root causes (records, explained) and each departing
    record's cause, whether its pair reproduced, where and what differs; the moment an answer was made (a
    server's timestamps, ids) as placeholders (`without_volatile`): two replays of a call differ there."""
    report = json.loads(report_json)
    return cast(dict[str, object], without_volatile(json.loads(json.dumps({
        "causes": [(c["id"], c["records"], c["explains"]) for c in report["root_causes"]],
        "records": [(rv["id"], rv["verdict"], rv.get("explained_by"),
                     None if rv.get("evidence") is None else (
                         rv["evidence"]["reproduced"], rv["evidence"]["at"], rv["evidence"]["differences"],
                         rv["evidence"]["cause"], rv["evidence"]["not_replayed"]))
                    for rv in report["records"] if rv["verdict"] in ("deviates", "error")],
    }))))


def one(tree: Path, pre: Path, spec: str, renames: str, out: Path) -> tuple[float, int, dict[str, object]]:
    """`pre` through `tree`'s `with_evidence`: wall seconds, processes started, what the report says."""
    done = subprocess.run([sys.executable, "-c", _ONE, str(pre), spec, renames, str(out)], cwd=tree,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{tree}: exit {done.returncode}: {done.stderr[-2000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return float(figures["wall_s"]), int(figures["processes"]), said(out.read_text(encoding="utf-8"))


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["capture"]:
        parser = argparse.ArgumentParser(prog="python -m benchmarks.evidence_replays capture")
        parser.add_argument("rest", nargs=argparse.REMAINDER)
        rest = parser.parse_args(args[1:]).rest
        return subprocess.call([sys.executable, "-c", _CAPTURE, *(rest[1:] if rest[:1] == ["--"] else rest)])
    parser = argparse.ArgumentParser(prog="python -m benchmarks.evidence_replays", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pre", type=Path, required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--arguments-map", default="")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR")
    parsed = parser.parse_args(args)
    trees: list[tuple[str, Path]] = [("after", REPO)]
    for given in parsed.tree:
        name, _, folder = given.partition("=")
        if not name or not (Path(folder) / "conformance").is_dir():
            parser.error(f"--tree wants NAME=DIR, a checkout of the harness: {given!r}")
        trees.append((name, Path(folder).resolve()))
    rows: list[str] = ["| round | tree | wall s | processes | says what `after` says |", "| --- " * 5 + "|"]
    with tempfile.TemporaryDirectory(prefix="evidence-replays-") as scratch:
        for index in range(max(1, parsed.rounds)):
            found: dict[str, tuple[float, int, dict[str, object]]] = {}
            for name, tree in rotated(trees, index):
                found[name] = one(tree, parsed.pre.resolve(), parsed.target, parsed.arguments_map,
                                  Path(scratch) / f"{name}-{index}.json")
            for name, (wall, started, says) in found.items():
                same = "yes" if says == found["after"][2] else "NO"
                rows.append(f"| {index + 1} | {name} | {wall:.1f} | {started} | {same} |")
                print(rows[-1], file=sys.stderr, flush=True)
    print(f"`{' '.join(['python -m benchmarks.evidence_replays', *args])}`, load {os.getloadavg()[0]:.1f}\n")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
