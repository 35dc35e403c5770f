"""Refresh one profile's table of fixtures/shards/costs.yaml from a real run: each test's duration as its
report.json recorded it, in milliseconds, with the run's command, target, profile, seed, commit and date.

    python -m conformance run --target npm:0.6.2 --profile thorough --seed 1 --out runs/thorough
    python -m scripts.refresh_shard_costs runs/thorough [--table NAME] [--costs fixtures/shards/costs.yaml]

The run's folder is read as untrusted input (report.json bounded, validated against the report schema and
model); a shard's report (only its share of the tests) or a stopped run's is refused, since its durations
would describe part of the suite. The run's profile is dealt by the new table from then on; the other tables,
and the tables the other profiles are dealt by, are kept. The file is written whole, validated before it
replaces the old one.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import yaml

from conformance.catalog.fixtures import fixtures_dir
from conformance.catalog.schemas import first_violation
from conformance.catalog.shard_costs import (
    COSTS_FORMAT,
    MAX_COST_MS,
    CostTable,
    Measured,
    ShardCostsError,
    ShardCostsFile,
    cost_key,
    costs_path,
    load_costs_file,
)
from conformance.core.errors import HarnessError
from conformance.core.inputs import validated
from conformance.core.outfolder import write_file
from conformance.report.json import load_report
from conformance.report.model import Report

HEADER: Final = """\
# What each test of the suite costs to run, per profile: the weights `run --shard I/N` deals a run's tests by
# (conformance/suite/sharding.py, docs/sharding.md). Each table's costs are the per-test durations of the run
# its `measured` names (milliseconds; a test is its pytest node id without the target parameter); a test a
# table does not name costs its `default_ms` (the median). `profiles` says which table deals each profile.
#
# Written by `python -m scripts.refresh_shard_costs RUN_DIR` from that run's report.json; refresh a table
# when tests are added or their costs change. Schema: fixtures/schemas/shard_costs.schema.json.
"""


def table_of(report: Report) -> CostTable:
    """The run's per-test durations as a cost table; one line naming the problem if they cannot be one."""
    if report.harness.shard is not None:
        raise ShardCostsError(f"it is shard {report.harness.shard}'s report: give the merged run's folder")
    if report.run.interrupted is not None:
        raise ShardCostsError(f"the run was stopped ({report.run.interrupted[:200]}): not all its tests ran")
    tests = report.tests_once()
    durations: dict[str, list[float]] = defaultdict(list)
    for nodeid, test in tests.items():
        if not math.isfinite(test.duration) or not 0 <= test.duration <= MAX_COST_MS / 1000:
            raise ShardCostsError(f"{nodeid[:200]}: duration {test.duration} is not a test's")
        durations[cost_key(nodeid)].append(test.duration)
    if not durations:
        raise ShardCostsError("its report names no test")
    costs = {key: max(1, round(1000 * statistics.fmean(spent))) for key, spent in durations.items()}
    measured = Measured(
        command=report.run.rerun, target=report.target.spec, profile=report.harness.profile,
        seed=report.harness.seed, harness_commit=report.harness.git_commit, date=report.run.finished[:10],
        run_s=round(report.run.duration_s, 1), tests=len(tests),
    )
    return CostTable(measured=measured, default_ms=round(statistics.median_low(costs.values())),
                     costs_ms=dict(sorted(costs.items())))


def refreshed(current: ShardCostsFile | None, name: str, table: CostTable) -> ShardCostsFile:
    """`current` with table `name` replaced (or added) and dealing the profile it was measured with; the other
    profiles keep the tables they are dealt by."""
    tables = {**(current.tables if current else {}), name: table}
    profiles = {**(current.profiles if current else {}), table.measured.profile: name}
    return ShardCostsFile(format=COSTS_FORMAT, profiles=profiles, tables=dict(sorted(tables.items())))


def write(document: ShardCostsFile, path: Path) -> None:
    """Checked against the schema and read back as the model before it replaces `path`."""
    data = document.model_dump(mode="json")
    schema = json.loads((fixtures_dir() / "schemas" / "shard_costs.schema.json").read_text(encoding="utf-8"))
    violation = first_violation(schema, data)
    if violation is not None:
        raise ShardCostsError(f"the refreshed table does not fit its schema: {violation}")
    validated(ShardCostsFile, data, str(path), ShardCostsError)
    text = HEADER + yaml.safe_dump(data, sort_keys=False, allow_unicode=False, width=120)
    write_file(path, text, replace=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.refresh_shard_costs", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path, help="a finished run's report folder (`run --out`, a merge's)")
    parser.add_argument("--table", default=None, help="the table to replace (default: the run's profile)")
    parser.add_argument("--costs", type=Path, default=None, help="the cost file (default: the shipped one)")
    args = parser.parse_args(argv)
    path: Path = args.costs or costs_path()
    try:
        report = load_report(args.run_dir / "report.json")
        table = table_of(report)
        name = args.table or table.measured.profile
        current = load_costs_file(path) if path.exists() else None
        write(refreshed(current, name, table), path)
    except HarnessError as exc:
        said = " ".join(str(exc).split())[:500]
        print(f"refresh_shard_costs: error: {args.run_dir}: {said}", file=sys.stderr)
        return 2
    print(f"{path}: table {name}: {len(table.costs_ms)} tests from {table.measured.target} "
          f"({table.measured.profile}, {table.measured.run_s} s), default {table.default_ms} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
