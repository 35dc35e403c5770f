"""`run --shard 1/2` and `run --shard 2/2` of the reference with the ci profile, merged with `run --merge`:
the merged report judges every record as the session's single run of the same seed does (`reference_ci`,
shared with test_cli.py and test_processes.py, so this module adds one run's worth of shards, not two runs).
The merge logic on generated shard reports, and hostile shard folders: tests/fast/test_shard_merge.py.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conformance.catalog.shard_costs import shard_costs
from conformance.core.identity import ShardIdentity
from conformance.core.results import RunResults
from conformance.gate import exit_status
from conformance.suite.sharding import share_of
from tests.cli import CountedRun, Ran, cli

COUNT = 2


@pytest.fixture(scope="module")
def shard_runs(reference_ci: CountedRun, tmp_path_factory: pytest.TempPathFactory,
               ahead: ThreadPoolExecutor) -> list[Ran]:
    """Both shards of the single run's target, profile and seed, side by side (a longer --call-timeout, which
    decides no example, so that two runs starting at once on a loaded machine still get their answers)."""
    root = tmp_path_factory.mktemp("shards")
    runs = [
        ahead.submit(cli, "run", "--target", "reference", "--profile", reference_ci.profile, "--seed",
                     reference_ci.seed, "--shard", f"{index}/{COUNT}", "--call-timeout", "30",
                     out=root / f"shard-{index}")
        for index in range(1, COUNT + 1)
    ]
    return [run.result() for run in runs]


@pytest.fixture(scope="module")
def merged(shard_runs: list[Ran], tmp_path_factory: pytest.TempPathFactory) -> Ran:
    return cli("run", "--merge", *(str(r.out) for r in shard_runs),
               out=tmp_path_factory.mktemp("merged") / "out")


def _judged(report: dict[str, Any]) -> dict[str, object]:
    """Each record's verdict, reason, examples and tests (by node id and status), and the run's gate."""
    records = {
        r["id"]: (r["verdict"], r["reason"], r["examples"],
                  sorted((t["nodeid"], t["status"]) for t in r["tests"]))
        for r in report["records"]
    }
    return {"records": records, "gate": report["gate"], "root_causes": report["root_causes"],
            "summary": report["summary"]}


def test_each_shard_runs_its_share_and_says_which_it_is(shard_runs: list[Ran],
                                                        reference_ci: CountedRun) -> None:
    """Each shard ran the tests the cost table deals it from the run's collection, and no other."""
    single = reference_ci.ran.report
    costs = shard_costs(reference_ci.profile)
    counts = []
    for index, ran in enumerate(shard_runs, start=1):
        assert ran.code == exit_status.OK, ran.stderr
        report = ran.report
        results = RunResults.model_validate_json((ran.out / "results.json").read_text(encoding="utf-8"))
        shard = ShardIdentity(index=index, count=COUNT)
        assert sorted(t.nodeid for t in results.tests) == sorted(share_of(results.collected, shard, costs))
        assert report["harness"]["shard"] == {"index": index, "count": COUNT}
        assert report["gate"]["deferred"] and not report["gate"]["passed"]
        assert f"shard {index}/{COUNT}" in ran.stdout
        counts.append(report["run"]["tests"])
    assert sum(counts) == single["run"]["tests"] and min(counts) > 0


def test_merged_verdicts_are_the_single_runs(merged: Ran, reference_ci: CountedRun) -> None:
    single = reference_ci.ran
    assert merged.code == single.code == exit_status.OK, merged.stderr
    assert _judged(merged.report) == _judged(single.report)
    report = merged.report
    assert report["harness"]["shard"] is None and report["gate"]["deferred"] is None
    assert [s["shard"] for s in report["run"]["shards"]] == [{"index": i, "count": COUNT} for i in (1, 2)]
    assert report["run"]["rerun"] == single.report["run"]["rerun"]
    transcripts = {t["transcript"] for r in report["records"] for t in r["tests"]} - {None}
    assert transcripts and all((merged.out / t).is_file() for t in transcripts)
    assert all(Path(t).parts[1] in ("shard-1", "shard-2") for t in transcripts)
