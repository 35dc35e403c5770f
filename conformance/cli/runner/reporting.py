"""The report of one run, whichever way it ends: what every report of the run shares (catalog, baseline,
findings, start time, output folder) is gathered once, before anything can fail, and each ending writes it."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import shlex
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.catalog.fixtures import fixtures_dir
from conformance.catalog.selection import Selection, select_records
from conformance.catalog.view import CatalogView, load_catalog_view
from conformance.core.create import create_file, ensure_folder
from conformance.core.identity import ShardIdentity, harness_identity
from conformance.core.model_json import model_json
from conformance.core.results import RunResults
from conformance.drivers import cancel, process
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.gate.baseline import Baseline, canonical_entries, check_spec, load_baseline
from conformance.gate.findings import FindingsFile, check_findings, load_findings
from conformance.gate.preflight_departures import with_stray_lines
from conformance.gate.run_options import RunOptions
from conformance.gate.signatures import Exhaustion, RecordSignature
from conformance.gate.stdout_hygiene import stdout_hygiene
from conformance.report.model import Gate, Report, RunInfo, RunSelection
from conformance.report.text import stopped_before_checks
from conformance.report.write import write_report

if TYPE_CHECKING:
    from conformance.gate.evidence import Replays
    from conformance.targets.specs import Target

Signer = Callable[[list[str]], Mapping[str, RecordSignature]]


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class RunReport:
    options: RunOptions
    catalog: CatalogView
    baseline: Baseline | None
    findings: FindingsFile
    started: str
    t0: float
    selection: Selection
    shown: Path
    """The --out folder as the user named it (`options.out` is the staging folder): what next steps name."""

    @classmethod
    def begin(cls, options: RunOptions, shown: Path | None = None) -> RunReport:
        """Check the baseline and findings; `options.out` is the run's own new (staging) folder, `shown` the
        folder the user named (default: `options.out`)."""
        catalog = load_catalog_view()
        baseline = checked_baseline(options, catalog)
        findings = load_findings(fixtures_dir() / "findings.yaml")
        check_findings(findings, catalog.canonical)
        selection = select_records(catalog.records, catalog.canonical, options.select, options.deselect)
        report = cls(options, catalog, baseline, findings, _now(), time.monotonic(), selection,
                     shown if shown is not None else options.out)
        ensure_folder(report.transcripts)
        return report

    @property
    def transcripts(self) -> Path:
        return self.options.out / "transcripts"

    def write(
        self,
        results: RunResults | None,
        seen: TargetSeen,
        pytest_exit: int | None,
        why: str,
        sign: Signer | None = None,
        run: RunInfo | None = None,
        sign_original: Signer | None = None,
        exhausted: Callable[[], Exhaustion | None] | None = None,
    ) -> Report:
        """Judge, assemble and write the report; `why` is what records no test ran say (a stop overrides);
        `run`, when given, is what the report says of the run (a merge's, from its shards)."""
        options = self.options
        stop = cancel.requested()
        interrupted = stop.reason if stop is not None else results.stopped if results is not None else None
        if interrupted is not None:
            why = f"not run: {interrupted}"
        elif options.shard is not None and results is not None:
            why = f"not run in shard {options.shard}: another shard of the run has its tests"

        def due(made: Report) -> bool:
            return (options.shard is None and stop is None and bool(made.root_causes)
                    and not stopped_before_checks(made))

        hygiene = stdout_hygiene(self.transcripts)
        # A stray line the drivers read past fails no check: CMP-4 departs for it here.
        if options.shard is None:  # a shard's results are merged, then judged once
            results = with_stray_lines(results, hygiene)
        with _Ahead(options, due) as ahead:
            report = assemble_report(
                catalog=self.catalog.records,
                canonical=self.catalog.canonical,
                results=results,
                seen=seen,
                harness=results.harness
                if results is not None
                else harness_identity(profile=options.profile, seed=_text(options.forced_seed),
                                      shard=options.shard),
                run=run or self._run_info(results, pytest_exit, interrupted),
                generated=_now(),
                baseline=self.baseline,
                baseline_path=str(options.baseline) if options.baseline else None,
                findings=self.findings,
                not_run_reason=why,
                sign=sign,
                sign_original=sign_original,
                exhausted=exhausted,
                not_selected=self.selection.not_selected,
                strict=options.strict_baseline,
                # Without a baseline the gate reads no signature, so the unsigned report's walk is the
                # evidence's own; with one, the order could differ and a pair be replayed for nothing.
                foresee=ahead.start if self.baseline is None else None,
                evidence=lambda made: ahead.evidenced(made) if due(made) else made,
            )
        if hygiene is not None:
            report = report.model_copy(update={"stdout_hygiene": hygiene})
        if options.shard is not None:
            report = _as_shard(report, options.shard)
            if results is not None:
                create_file(options.out / "results.json", model_json(results, indent=1), replace=True)
        write_report(report, options.out)
        return report

    def _run_info(
        self, results: RunResults | None, pytest_exit: int | None, interrupted: str | None
    ) -> RunInfo:
        options = self.options
        return RunInfo(
            started=self.started,
            finished=_now(),
            duration_s=round(time.monotonic() - self.t0, 3),
            jobs=options.jobs,
            processes_started=results.processes_started if results else process.processes_started(),
            calls_made=results.calls_made if results else 0,
            tests=len(results.tests) if results is not None else 0,
            rerun=shlex.join(options.command()),
            out=str(self.shown),
            pytest_exit=pytest_exit,
            interrupted=interrupted,
            selection=self._selection(),
            example_db=str(options.example_db) if options.example_db is not None else None,
        )


    def _selection(self) -> RunSelection | None:
        if not (self.options.select or self.options.deselect):
            return None
        return RunSelection(select=list(self.options.select), deselect=list(self.options.deselect),
                            not_selected=list(self.selection.not_selected))


class _Ahead:
    """A report's evidence: each leading root cause's example, then each departure's, replayed on fresh
    processes of the target and the original (npm:0.6.2 when the cache holds it, else the reference); a
    target that cannot be started again keeps its report as it was. Not for a shard or a stopped run (`due`);
    a run the breaker stopped keeps its evidence (a target that ends itself shows it best); a preflight
    stop's evidence is its own transcript. The pairs the walk will ask for start when the report is first
    seen unsigned (`start`), so they run while the departures' witnesses are asked (issue 46)."""

    def __init__(self, options: RunOptions, due: Callable[[Report], bool]) -> None:
        self.options, self.due = options, due
        self.replays: Replays | None = None

    def __enter__(self) -> _Ahead:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.replays is not None:
            self.replays.__exit__(None, None, None)

    @functools.cached_property
    def sides(self) -> tuple[Target, Target] | None:
        """The target and the original, resolved once (a release's files are hashed to resolve it)."""
        from conformance.core.arguments_map import renames_of
        from conformance.core.errors import HarnessError
        from conformance.gate.evidence import original_target
        from conformance.targets.specs import default_cache_dir, resolve_target

        options = self.options
        try:
            target = resolve_target(options.target, cache_dir=options.cache)
            target = dataclasses.replace(target, renames=renames_of(options.arguments_map))
            original = original_target(options.cache if options.cache is not None else default_cache_dir())
        except HarnessError:
            return None
        return target, original

    def start(self, report: Report) -> None:
        """Start the pairs the walk will ask for on `report` (unsigned), when it will be evidenced."""
        from conformance.gate.evidence import replays_ahead

        sides = self.sides if self.due(report) and self.replays is None else None
        if sides is not None:
            self.replays = replays_ahead(report, *sides, self.options.timeout)

    def evidenced(self, report: Report) -> Report:
        from conformance.gate.evidence import with_evidence

        sides = self.sides
        if sides is None:
            return report
        return with_evidence(report, *sides, self.options.timeout, replays=self.replays)


def _as_shard(report: Report, shard: ShardIdentity) -> Report:
    """A shard's report: its gate is not the run's (records of other shards are not run here), so it is left
    to the merged report, and the report says so instead of passing or failing."""
    deferred = (
        f"this is shard {shard} of a run; `run --merge` of its {shard.count} shard reports judges the gate"
    )
    gate = Gate(baseline=report.gate.baseline, passed=False, deferred=deferred)
    return report.model_copy(update={"gate": gate})


def checked_baseline(options: RunOptions, catalog: CatalogView | None = None) -> Baseline | None:
    """`--baseline`, read and checked against the target and the catalog (a file that cannot be used is an
    `InputError`, exit status 4): also called before a run says it started, so a bad one starts nothing."""
    if options.baseline is None:
        return None
    baseline = load_baseline(options.baseline)
    check_spec(baseline, options.baseline, options.target)
    canonical_entries(baseline, (catalog or load_catalog_view()).canonical)
    return baseline


def _text(seed: int | None) -> str | None:
    return None if seed is None else str(seed)
