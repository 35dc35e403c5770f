"""Server processes per run and wall time, this tree beside an earlier commit, under the same load.

For each target, `python -m conformance run` of the same profile and seed is started at the same moment from
this checkout and from the earlier commit (`git archive` into a temporary folder), so that both runs meet
the same machine load; each reports the server processes it started (`run.processes_started`, every start
counted by `drivers/process.spawn`), its wall time, and the records, claims and findings whose verdict
differs between the two runs, and the tests whose status differs (none expected of a change to how processes
are shared):

    python -m benchmarks.processes --before REV [--targets npm:0.6.2,reference] [--profile ci] [--seed 1]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from conformance.gate.run_options import RunOptions
from conformance.report.json import load_report
from conformance.report.model import Report

REPO: Final = Path(__file__).resolve().parent.parent
RUN_TIMEOUT: Final = 1200.0


@dataclass(frozen=True)
class Side:
    """One run of one tree: its exit status, wall time and report."""

    code: int
    wall_s: float
    report: Report


def verdicts(report: Report) -> dict[str, str]:
    """Every verdict a report gives, by record, claim and finding."""
    given = {f"record {r.id}": str(r.verdict) for r in report.records}
    given |= {f"claim {c.claim}": str(c.verdict) for c in report.claims}
    given |= {f"finding {f.finding}": str(f.verdict) for f in report.findings}
    return given


def statuses(report: Report) -> dict[str, str]:
    """Every test's status, by node id, as the records' verdicts list them."""
    return {test.nodeid: test.status for record in report.records for test in record.tests}


def run_in(tree: Path, options: RunOptions, log: Path) -> Side:
    """`python -m conformance run` with `tree` as its working folder (its own harness), to the end."""
    started = time.perf_counter()
    with log.open("wb") as handle:
        done = subprocess.run(options.command(sys.executable, local=True), cwd=tree, stdout=handle,
                              stderr=subprocess.STDOUT, timeout=RUN_TIMEOUT, check=False)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{options.target} in {tree}: exit status {done.returncode} (log: {log})")
    return Side(done.returncode, wall, load_report(options.out / "report.json"))


def side_by_side(before: Path, target: str, profile: str, seed: int, out: Path) -> tuple[Side, Side]:
    """The same run from both trees, started together (each on a thread of its own)."""
    sides: dict[str, Side] = {}
    failures: list[BaseException] = []

    def one(name: str, tree: Path) -> None:
        folder = out / f"{name}-{target.replace(':', '_')}"
        options = RunOptions(target=target, profile=profile, seed=seed, out=folder)
        try:
            sides[name] = run_in(tree, options, out / f"{folder.name}.log")
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=one, args=(name, tree)) for name, tree in
               (("before", before), ("after", REPO))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return sides["before"], sides["after"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.processes", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, metavar="REV", help="the earlier commit to compare with")
    parser.add_argument("--targets", default="npm:0.6.2,reference", metavar="LIST")
    parser.add_argument("--profile", default="ci")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, metavar="DIR", help="keep the runs' reports here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="seqthink-before-") as scratch:
        before = Path(scratch) / "tree"
        before.mkdir()
        archive = subprocess.run(["git", "archive", args.before], cwd=REPO, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive.stdout, check=True)
        out = (args.out or Path(scratch) / "runs").resolve()
        out.mkdir(parents=True, exist_ok=True)
        print(f"| target ({args.profile}, seed {args.seed}) | processes before → after | wall before → after "
              f"| exit | verdicts differing | test statuses differing |")
        print("| --- | ---: | ---: | --- | --- | --- |")
        for target in (t.strip() for t in args.targets.split(",") if t.strip()):
            old, new = side_by_side(before, target, args.profile, args.seed, out)
            a, b = verdicts(old.report), verdicts(new.report)
            differing = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
            s, t = statuses(old.report), statuses(new.report)
            changed = sorted(k for k in s.keys() | t.keys() if s.get(k) != t.get(k))
            print(f"| {target} | {old.report.run.processes_started} → {new.report.run.processes_started} "
                  f"| {old.wall_s:.1f} s → {new.wall_s:.1f} s | {old.code} → {new.code} "
                  f"| {len(differing)} of {len(a)}{': ' + ', '.join(differing) if differing else ''} "
                  f"| {len(changed)} of {len(s)}{': ' + ', '.join(changed) if changed else ''} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
