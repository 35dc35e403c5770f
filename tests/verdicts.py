"""Record verdicts and root causes as a run's report holds them, built from a record's id and its line, for
tests of the gate's reading of those lines (caps, trimmed stores, signs dropped) without a run."""

from __future__ import annotations

from conformance.catalog.view import load_catalog_view
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import RunResults, TestOutcome
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.report.model import (
    Evidence,
    Preflight,
    RecordVerdict,
    Report,
    RootCause,
    RunInfo,
    TestRef,
    Verdict,
)


def departing(rid: str, reason: str) -> RecordVerdict:
    """A record departing with `reason` as its check's line."""
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[], statement="", channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         reason=reason)


def cause(rid: str, explains: list[str], summary: str) -> RootCause:
    """A root cause led by `rid`, explaining `explains`, its headline `summary`."""
    return RootCause(id=rid, records=[rid], explains=explains, summary=f"{rid} departs — {summary}",
                     example=[], test=None, minimized=False)


def judged(rid: str, verdict: Verdict, evidence: Evidence | None, message: str) -> RecordVerdict:
    """A record judged by one test, whose failure says `message` when the record departs, with `evidence`
    (its replayed pair): what the gate's pinned-pair matching reads."""
    departs = verdict == "deviates"
    tests = [TestRef(nodeid=f"t-{rid}", status="failed" if departs else "passed", examples=1,
                     message=message if departs else "")]
    return RecordVerdict(id=rid, kind="obj", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict=verdict, evidence_before="implemented", evidence_after="observed",
                         evidence=evidence, reason="r", tests=tests)


def assembled_report(outcomes: list[TestOutcome], command: tuple[str, ...] = ("fork",),
                     spec: str | None = None) -> Report:
    """The report the gate assembles from the suite's outcomes (TestOutcome → TestRef), against a target
    `cmd:<command>` (or `spec`, an npm release run as `command`) seen with a passing preflight."""
    catalog = load_catalog_view()
    harness = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")
    target = TargetIdentity(spec=spec or "cmd:" + " ".join(command), kind="npm" if spec else "cmd",
                            command=list(command))
    results = RunResults(target=target, harness=harness, started="t0", finished="t1", tests=outcomes)
    return assemble_report(
        catalog=catalog.records, canonical=catalog.canonical, results=results,
        seen=TargetSeen(target, Preflight(ok=True), {}, "2024-11-05"), harness=harness,
        run=RunInfo(started="t0", finished="t1", duration_s=1.0, jobs=1, processes_started=1, calls_made=1,
                    tests=len(outcomes), rerun="python -m conformance run"),
        generated="t1",
    )


def assembled(rid: str, outcomes: list[TestOutcome]) -> RecordVerdict:
    """`rid`'s verdict as the gate assembles it from the suite's outcomes (`assembled_report`)."""
    return next(rv for rv in assembled_report(outcomes).records if rv.id == rid)
