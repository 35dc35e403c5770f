"""`conformance run`: check the target can be driven, run the suite in-process, judge, write the report.

The target is resolved and started once before the suite (`preflight.py`), and that process, handed over,
serves as the suite's shared server (`suite.py`); the results, merged when pytest-xdist ran them
(`merge.py`), are judged into the report (`reporting.py`). SIGTERM, SIGINT and `--max-time` stop the run
within seconds with a report that says so (`drivers/cancel.py`). Everything is written into a staging folder
that replaces `--out` once a report is written (`core/outfolder.py`): a run that fails before it can judge
the target leaves the previous report as it was.
"""

from __future__ import annotations

import dataclasses
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from conformance.cli.runner.merge import gather_results, merge_results
from conformance.cli.runner.preflight import check_target, explained, failure_clause, preflight
from conformance.cli.runner.reporting import RunReport
from conformance.cli.runner.suite import FINISHED, import_ahead, pytest_failure, run_suite
from conformance.core.arguments_map import renames_of
from conformance.core.errors import HarnessError
from conformance.core.outfolder import claimed
from conformance.core.results import RunResults
from conformance.drivers import cancel, workfolder
from conformance.drivers.errors import TargetError
from conformance.drivers.wire import set_max_frame
from conformance.gate import exit_status
from conformance.gate.assemble import TargetSeen
from conformance.gate.baseline import check_project
from conformance.gate.pinned import original_signatures
from conformance.gate.run_options import RunOptions
from conformance.gate.signatures import exhaustion_refusal
from conformance.gate.spec_signatures import sign_run_departures
from conformance.report.escape import safe, write_line
from conformance.report.model import Preflight, Report
from conformance.report.write import write_report
from conformance.suite.handover import Handover
from conformance.targets.kinds import unresolved_identity
from conformance.targets.project import project_of
from conformance.targets.specs import Target, resolve_target


@dataclass
class RunOutcome:
    """What the CLI needs: the exit status, the one line for stderr when it is 2, the report if written."""

    exit_code: int
    report: Report | None = None
    message: str | None = None


def run(options: RunOptions, stream: TextIO) -> RunOutcome:
    """One run under SIGTERM/SIGINT/deadline handling: a stop ends it early with a report that says so.
    `--out` is claimed first and replaced only when a report was written (an error raised leaves it). Every
    server process it starts has its folders in the run's state folder, removed at its end (`workfolder`)."""
    set_max_frame(options.max_frame)
    with claimed(options.out, "run") as folder:
        with tempfile.TemporaryDirectory(prefix="seqthink-run-", ignore_cleanup_errors=True) as state, \
                workfolder.run_folder(Path(state)), cancel.handling(options.max_time), Handover() as handover:
            outcome = _run(dataclasses.replace(options, out=folder.staging), stream, handover, options.out)
        if outcome.report is not None:
            folder.commit()
        return outcome


def _run(options: RunOptions, stream: TextIO, handover: Handover, shown: Path) -> RunOutcome:
    """The run, written into `options.out` (the staging folder); messages name `shown`, the user's --out."""
    with cancel.deferred():
        report = RunReport.begin(options, shown)
    spec = options.target
    seen = _unresolved(spec, "cancelled")
    try:
        cancel.check()
        try:
            target = resolve_target(spec, cache_dir=options.cache,
                                    progress=lambda msg: write_line(f"  {safe(msg, 200)}", stream))
        except TargetError as exc:
            seen = _unresolved(spec, str(exc))
            seen = replace(seen, preflight=explained(seen.preflight))
            return _unusable(report, seen, f"target {spec} cannot be used: {exc}",
                             said=failure_clause(seen.preflight))
        if report.baseline is not None and options.baseline is not None:
            check_project(report.baseline, options.baseline, spec, project_of(target.identity))
        target = replace(target, renames=renames_of(options.arguments_map), lateness=handover.lateness)
        write_line(f"preflight: starting {safe(spec)}", stream)
        seen = preflight(target, report.transcripts, options.timeout, handover if options.jobs == 1 else None,
                         meanwhile=import_ahead(options), mapped_from=options.arguments_map)
        if not seen.preflight.ok:
            return _unusable(report, seen, f"target {spec} is not usable: {seen.preflight.error}",
                             said=failure_clause(seen.preflight))
        against = _check_against(options, report.transcripts, stream)
        if against is not None:
            failed = seen.preflight.model_copy(update={"ok": False, "error": against})
            return _unusable(report, dataclasses.replace(seen, preflight=failed), against)
        with tempfile.TemporaryDirectory(prefix="seqthink-run-") as tmp:
            results_dir = Path(tmp) / "results"
            pytest_exit = run_suite(options, results_dir, Path(tmp), report.catalog, stream, handover)
            results = gather_results(results_dir, target.spec, report.transcripts)
    except cancel.Cancelled:
        return _stopped(report.write(None, seen, None, "not run"))
    if cancel.requested() is not None:
        handover.close()
        return _stopped(report.write(results, seen, int(pytest_exit), "not run"))
    if pytest_exit not in FINISHED or results is None:
        why = f"{pytest_failure(pytest_exit, results is None)} (see {shown / 'pytest.log'})"
        message = f"the suite could not run against {spec}: {why}"
        return _unusable(report, seen, message, results, int(pytest_exit))
    witnesses = report.transcripts / "witnesses.jsonl"
    written = report.write(
        results, seen, int(pytest_exit), "no test evidences this record",
        sign=lambda ids: sign_run_departures(target, ids, options.timeout, witnesses, results),
        exhausted=lambda: exhaustion_refusal(target, timeout=options.timeout),
        sign_original=lambda ids: original_signatures(ids, cache_dir=options.cache, timeout=options.timeout,
                                                      transcript_path=report.transcripts / "originals.jsonl"),
    )
    if options.against is not None:
        try:
            written = _with_comparison(written, options, target, report.transcripts, stream)
        except HarnessError as exc:
            why = f"the comparison with {options.against} failed: {exc}"
            return _comparison_failed(written, options, why)
    if options.shard is not None:
        return RunOutcome(exit_status.OK, written)  # it ran: the gate is the merged report's
    return RunOutcome(exit_status.OK if written.gate.passed else exit_status.GATE_FAILED, written)


def _check_against(options: RunOptions, transcripts: Path, stream: TextIO) -> str | None:
    """`--against B` is started once before the suite, as the target was: why B cannot be used, or None."""
    if options.against is None:
        return None
    spec = options.against
    write_line(f"preflight: starting {safe(spec)} (--against)", stream)
    try:
        against = resolve_target(spec, cache_dir=options.cache,
                                 progress=lambda msg: write_line(f"  {safe(msg, 200)}", stream))
    except TargetError as exc:
        return f"--against {spec} cannot be used: {exc}"
    checked, _, _ = check_target(against, transcripts / "preflight-against.jsonl", options.timeout)
    if checked.ok:
        return None
    return f"--against {spec} is not usable: {checked.error}{failure_clause(checked)}"


def _comparison_failed(report: Report, options: RunOptions, message: str) -> RunOutcome:
    """`--against B` became unusable during the comparison: the report says the gate failed, and why."""
    failed = report.model_copy(update={
        "gate": report.gate.model_copy(update={"passed": False}),
        "preflight": report.preflight.model_copy(update={"ok": False, "error": message}),
    })
    write_report(failed, options.out)
    return RunOutcome(exit_status.UNUSABLE, failed, message)


def _unresolved(spec: str, error: str) -> TargetSeen:
    """What a report says was seen of a target that was never started."""
    return TargetSeen(unresolved_identity(spec), Preflight(ok=False, error=error), {}, None)


def _unusable(report: RunReport, seen: TargetSeen, message: str, results: RunResults | None = None,
              pytest_exit: int | None = None, said: str = "") -> RunOutcome:
    """The outcome of a run whose target (or suite) could not be used: exit status 2, a report saying why
    (the records not run say `message`; the line on stderr adds what the server `said` and the hint)."""
    return RunOutcome(exit_status.UNUSABLE, report.write(results, seen, pytest_exit, message), message + said)


def _with_comparison(report: Report, options: RunOptions, target: Target, transcripts: Path,
                     stream: TextIO) -> Report:
    """`run --against B`: the same report, with the comparison of the target with B (and its root causes)."""
    from conformance.compare import run_comparison

    assert options.against is not None
    write_line(f"compare: {safe(options.target)} vs {safe(options.against)}", stream)
    outcome = run_comparison(
        target, options.against, profile=options.profile, seed=options.seed, cache=options.cache,
        call_timeout=options.timeout, transcripts=transcripts,
        progress=lambda line: write_line(f"  {safe(line, 200)}", stream),
    )
    report = report.model_copy(
        update={"comparison": outcome.comparison, "root_causes": [*report.root_causes, *outcome.root_causes]}
    )
    write_report(report, options.out)
    return report


def _stopped(report: Report) -> RunOutcome:
    """The outcome of a run stopped by a signal or its deadline: the signal's exit status, one line why."""
    stop = cancel.requested()
    assert stop is not None
    return RunOutcome(stop.exit_code, report, f"run stopped: {stop.reason}; unfinished records are not run")


__all__ = [
    "HarnessError",
    "RunOptions",
    "RunOutcome",
    "check_target",
    "merge_results",
    "run",
]
