"""The suite's results as the runner reads them: one file, or one per pytest-xdist worker (`suite/workers.py`
gives each its own folder) merged into one, with the transcripts they point to copied beside the report."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from conformance.core.create import copy_file
from conformance.core.model_json import model_from_json
from conformance.core.results import RunResults, TestOutcome
from conformance.drivers import process
from conformance.suite.plugin import slug
from conformance.suite.workers import WORKER_PREFIX


def collect_results(results_dir: Path, spec: str) -> RunResults | None:
    """The plugin's results for `spec`: one file, or one per xdist worker merged into one."""
    name = f"results-{slug(spec)}.json"
    single = results_dir / name
    if single.is_file():
        return model_from_json(RunResults, single.read_text(encoding="utf-8"))
    parts = sorted(results_dir.glob(f"{WORKER_PREFIX}*/{name}"))
    if not parts:
        return None
    return merge_results(
        [model_from_json(RunResults, p.read_text(encoding="utf-8")) for p in parts],
        [p.parent.name for p in parts],
        extra_processes=process.processes_started(),
    )


def merge_results(
    parts: Sequence[RunResults], workers: Sequence[str], *, extra_processes: int = 0
) -> RunResults:
    """One result set from xdist workers' sets: worker-qualified transcript paths, tests in nodeid order."""
    tests: list[TestOutcome] = []
    for part, worker in zip(parts, workers, strict=True):
        for outcome in part.tests:
            transcript = outcome.transcript
            if transcript is not None:
                transcript = f"{worker}/{transcript}"
            tests.append(outcome.model_copy(update={"transcript": transcript}))
    tests.sort(key=lambda t: t.nodeid)
    first = parts[0]
    server_info = next((p.server_info for p in parts if p.server_info), {})
    return first.model_copy(
        update={
            "server_info": server_info,
            "protocol_version": next((p.protocol_version for p in parts if p.protocol_version), None),
            "eras": {era: settled for p in parts for era, settled in p.eras.items()},
            "started": min(p.started for p in parts),
            "finished": max(p.finished for p in parts),
            "processes_started": sum(p.processes_started for p in parts) + extra_processes,
            "calls_made": sum(p.calls_made for p in parts),
            "tests": tests,
        }
    )


def _copy_transcripts(results_dir: Path, dest: Path, results: RunResults) -> set[str]:
    """Copy each transcript the outcomes name into `dest`; the names that were there to copy."""
    present: set[str] = set()
    for outcome_path in sorted({t.transcript for t in results.tests if t.transcript}):
        source = results_dir / outcome_path
        if source.is_file():
            present.add(outcome_path)
            target = dest / _flat_name(outcome_path)
            if not target.exists():
                copy_file(source, target)
    return present


def _flat_name(relative: str) -> str:
    """transcripts/x.jsonl → x.jsonl; worker-gw0/transcripts/x.jsonl → x.worker-gw0.jsonl."""
    parts = Path(relative).parts
    name = Path(parts[-1])
    workers = [p for p in parts if p.startswith(WORKER_PREFIX)]
    return f"{name.stem}.{workers[0]}{name.suffix}" if workers else name.name


def _relocated(results: RunResults, present: set[str]) -> RunResults:
    """Each outcome pointing to its copied transcript, or to none: a check whose target's shared process never
    started (the spec records' own meetings, `--select spec`) wrote no transcript, and a report links only
    files it wrote."""
    tests = [
        t.model_copy(update={
            "transcript": f"transcripts/{_flat_name(t.transcript)}" if t.transcript in present else None
        }) if t.transcript else t
        for t in results.tests
    ]
    return results.model_copy(update={"tests": tests})


def gather_results(results_dir: Path, spec: str, transcripts: Path) -> RunResults | None:
    """The run's results with their transcripts copied into `transcripts` and pointing there."""
    results = collect_results(results_dir, spec)
    if results is None:
        return None
    present = _copy_transcripts(results_dir, transcripts, results)
    return _relocated(results, present)
