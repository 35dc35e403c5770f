"""A run's results point only to transcripts that were written: a check whose target's shared process never
started (`run --select spec`: the spec records meet the server on processes of their own) names none."""

from __future__ import annotations

from pathlib import Path

from conformance.cli.runner.merge import gather_results
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import RunResults, TestOutcome

TARGET = TargetIdentity(spec="npm:2026.7.4", kind="npm", command=["node", "index.js"])
HARNESS = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")


def _outcome(nodeid: str, transcript: str) -> TestOutcome:
    return TestOutcome(nodeid=nodeid, records=["SPEC-1"], status="passed", transcript=transcript)


def test_a_transcript_never_written_is_not_named(tmp_path: Path) -> None:
    results_dir, report = tmp_path / "results", tmp_path / "out" / "transcripts"
    (results_dir / "transcripts").mkdir(parents=True)
    report.mkdir(parents=True)
    (results_dir / "transcripts" / "written.jsonl").write_text("{}\n", encoding="utf-8")
    results = RunResults(target=TARGET, harness=HARNESS, started="t0", finished="t1", tests=[
        _outcome("test_a", "transcripts/written.jsonl"),
        _outcome("test_b", "transcripts/npm_2026.7.4.jsonl"),
    ])
    (results_dir / "results-npm_2026.7.4.json").write_text(results.model_dump_json(), encoding="utf-8")
    gathered = gather_results(results_dir, "npm:2026.7.4", report)
    assert gathered is not None
    assert [t.transcript for t in gathered.tests] == ["transcripts/written.jsonl", None]
    assert sorted(p.name for p in report.iterdir()) == ["written.jsonl"]
