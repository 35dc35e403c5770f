"""Record verdicts and root causes as a run's report holds them, built from a record's id and its line, for
tests of the gate's reading of those lines (caps, trimmed stores, signs dropped) without a run."""

from __future__ import annotations

from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef, Verdict


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
