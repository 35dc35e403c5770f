"""From test outcomes to one verdict per catalog record, in the records' own vocabulary.

A record deviates when any test evidencing it failed (a counterexample exists), or when a test relying on
it failed naming it as contradicted; it is `error` when a test could not decide because the server
crashed, hung or broke the protocol (its counterexample is then the exchange that ended in the failure,
not shrunk); it holds when every test that ran passed; a record without a run test is `not observable`
(the catalog says why) or `not run`.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Protocol

from conformance.calls.probes import probe_of
from conformance.catalog.spec_records import ADVISORY_LEVELS, default_spec_catalog
from conformance.core.failure_text import readable, readable_example
from conformance.core.jsontypes import JSON
from conformance.core.protocol import PROTOCOL_VERSION
from conformance.core.results import Counterexample, RunResults, TestOutcome, TranscriptEvent
from conformance.report.model import (
    VERDICTS,
    ClaimObservationOut,
    ClaimVerdict,
    ClaimVerdictName,
    RecordVerdict,
    ReplayableCounterexample,
    Summary,
    TestRef,
    Verdict,
)

OBSERVED = "observed"
NOT_SELECTED = "not selected (--select/--deselect)"
CLAIM_KIND = "clm"
_CLAIM_SEVERITY: tuple[ClaimVerdictName, ...] = (
    "contradicted",
    "unsupported",
    "bounded",
    "observed-delivered",
    "supported",
)
"""A claim's overall verdict is its most severe observation; all observations are listed beside it."""


class CatalogRecord(Protocol):
    """What verdicts need of a catalog record (`catalog_view.RecordRow` over the real catalog)."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def aliases(self) -> Sequence[str]: ...
    @property
    def statement(self) -> str: ...
    @property
    def evidence_before(self) -> str: ...
    @property
    def observable(self) -> bool: ...
    @property
    def unobservable_reason(self) -> str | None: ...
    def channel_names(self) -> list[str]: ...
    def anchor_texts(self) -> list[str]: ...


def alias_map(records: Iterable[CatalogRecord]) -> dict[str, str]:
    """Every ID and alias → its canonical ID."""
    mapping: dict[str, str] = {}
    for record in records:
        mapping[record.id] = record.id
        for alias in record.aliases:
            mapping.setdefault(alias, record.id)
    return mapping


def judge(
    catalog: Sequence[CatalogRecord],
    results: RunResults | None,
    *,
    not_run_reason: str = "no test evidences this record",
    not_selected: Collection[str] = (),
) -> list[RecordVerdict]:
    """One verdict per catalog record, in catalog order; a record in `not_selected` is `not run` whatever
    a test that also evidences a selected record found."""
    canonical = alias_map(catalog)
    evidence: dict[str, list[TestOutcome]] = {r.id: [] for r in catalog}
    for outcome in results.tests if results is not None else []:
        for rid in dict.fromkeys(canonical.get(r, "") for r in [*outcome.records, *outcome.contradicted]):
            if rid:
                evidence[rid].append(outcome)
    left_out = set(not_selected)
    return [
        _verdict(record, [], NOT_SELECTED) if record.id in left_out
        else _verdict(record, evidence[record.id], not_run_reason)
        for record in catalog
    ]


def _verdict(record: CatalogRecord, tests: list[TestOutcome], not_run_reason: str) -> RecordVerdict:
    ran = [t for t in tests if t.status != "skipped"]
    failed = [t for t in ran if t.status == "failed"]
    errored = [t for t in ran if t.status == "error"]
    verdict: Verdict
    reason = ""
    if failed:
        verdict = "deviates"
        reason = readable(failed[0].message)
    elif errored:
        verdict = "error"
        reason = readable(errored[0].message)
    elif ran:
        verdict = "holds"
    elif not record.observable:
        verdict = "not observable"
        reason = record.unobservable_reason or "the catalog marks it not observable from outside"
    else:
        verdict = "not run"
        reason = _skipped_because(tests) if tests else not_run_reason
    observed = verdict in ("holds", "deviates")
    return RecordVerdict(
        id=record.id,
        kind=record.kind,
        aliases=list(record.aliases),
        anchors=record.anchor_texts(),
        statement=record.statement,
        channels=record.channel_names(),
        verdict=verdict,
        reason=reason,
        tests=[
            TestRef(
                nodeid=t.nodeid,
                status=t.status,
                examples=t.examples,
                duration=round(t.duration, 3),
                message=readable(t.message) if t.status in ("failed", "error") else t.message,
                contradicted=t.contradicted,
                transcript=t.transcript,
                notes=list(t.notes),
                observed=t.observed,
                ends_a_process=t.ends_a_process,
                left_idle=t.left_idle,
            )
            for t in tests
        ],
        examples=sum(t.examples for t in ran),
        counterexample=smallest_counterexample(failed or errored),
        probes=reached_by_probes(failed),
        transcripts=sorted({t.transcript for t in ran if t.transcript}),
        evidence_before=record.evidence_before,
        evidence_after=OBSERVED if observed else record.evidence_before,
    )


def _skipped_because(skipped: Sequence[TestOutcome]) -> str:
    """Why every test of a record was skipped, in the tests' own words (each distinct reason once)."""
    reasons = list(dict.fromkeys(t.message.strip() for t in skipped if t.message.strip()))
    if not reasons:
        return "every test evidencing it was skipped, without a reason"
    return "skipped: " + "; ".join(reasons)


def _sent(events: Sequence[TranscriptEvent]) -> list[str]:
    return [e.data.rstrip("\r\n") for e in events if e.kind == "sent"]


def reached_by_probes(failed: Sequence[TestOutcome]) -> list[str]:
    """The input shapes of the deterministic probes (calls/probes.py) a record's failing checks failed on,
    when every one of them failed on a probe; else none (the search reached it by itself)."""
    shapes: list[str] = []
    for outcome in failed:
        found = None
        if outcome.counterexample is not None:
            # The last probe the example sent: the call it failed on (a failing explicit example's exchange
            # may hold the examples before it).
            found = next((p for p in map(probe_of, reversed(_sent_arguments(outcome.counterexample.exchange)))
                          if p is not None), None)
        if found is None:
            return []
        shapes.append(found.shape)
    return list(dict.fromkeys(shapes))


def _sent_arguments(events: Sequence[TranscriptEvent]) -> list[dict[str, JSON]]:
    """The arguments of each tools/call sent during an example."""
    found: list[dict[str, JSON]] = []
    for frame in _sent(events):
        try:
            message = json.loads(frame)
        except ValueError:
            continue
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            continue
        params = message.get("params")
        arguments = params.get("arguments") if isinstance(params, dict) else None
        if isinstance(arguments, dict):
            found.append(arguments)
    return found


def smallest_counterexample(failed: Sequence[TestOutcome]) -> ReplayableCounterexample | None:
    """The failing test whose minimal example sends the fewest frames (then: the shortest text)."""
    found: list[tuple[TestOutcome, Counterexample]] = [
        (t, t.counterexample) for t in failed if t.counterexample is not None
    ]
    if not found:
        return None
    outcome, best = min(
        found,
        key=lambda pair: (len(_sent(pair[1].exchange)) or 10**9, len(pair[1].falsifying), pair[0].nodeid),
    )
    return ReplayableCounterexample(
        test=outcome.nodeid,
        falsifying=readable_example(best.falsifying) or readable(outcome.message),
        exchange=best.exchange,
        replay=replay_frames(best.exchange),
        minimized=best.minimized,
    )


def replay_frames(exchange: Sequence[TranscriptEvent]) -> list[str]:
    """The frames sent during the example, preceded by a handshake when the exchange lacks one; none when
    the example sent nothing on the shared process (a handshake alone replays no departure)."""
    sent = _sent(exchange)
    if all(_method(frame) in ("initialize", "notifications/initialized") for frame in sent):
        return []
    if any(_method(frame) == "initialize" for frame in sent[:1]):
        return sent
    handshake = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "replay", "version": "0"},
                },
            },
            separators=(",", ":"),
        ),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}, separators=(",", ":")),
    ]
    return handshake + sent


def _method(frame: str) -> str | None:
    try:
        message = json.loads(frame)
    except ValueError:
        return None
    method = message.get("method") if isinstance(message, dict) else None
    return method if isinstance(method, str) else None


def judge_claims(catalog: Sequence[CatalogRecord], results: RunResults | None) -> list[ClaimVerdict]:
    """Every claim of the catalog (CLM-*), with what the suite observed for or against it."""
    canonical = alias_map(catalog)
    statements = {r.id: r.statement for r in catalog}
    observed: dict[str, list[ClaimObservationOut]] = {r.id: [] for r in catalog if r.kind == CLAIM_KIND}
    for outcome in results.tests if results is not None else []:
        for obs in outcome.claims:
            claim = canonical.get(obs.claim, obs.claim)
            entry = ClaimObservationOut(
                verdict=obs.verdict, observation=obs.observation, test=obs.test or outcome.nodeid
            )
            bucket = observed.setdefault(claim, [])
            if entry not in bucket:
                bucket.append(entry)
    out: list[ClaimVerdict] = []
    for claim, observations in observed.items():
        verdicts = {o.verdict for o in observations}
        overall = next((v for v in _CLAIM_SEVERITY if v in verdicts), None)
        out.append(
            ClaimVerdict(
                claim=claim,
                statement=statements.get(claim, ""),
                verdict=overall if overall is not None else "no observation",
                observations=observations,
            )
        )
    return out


def summarize(verdicts: Sequence[RecordVerdict], *, examples: int) -> Summary:
    counts: dict[str, int] = {v: 0 for v in VERDICTS}
    for rv in verdicts:
        counts[rv.verdict] += 1
    return Summary(
        records=len(verdicts),
        counts=counts,
        observed=sum(rv.evidence_after == OBSERVED for rv in verdicts),
        moved_to_observed=sum(
            rv.evidence_before == "implemented" and rv.evidence_after == OBSERVED for rv in verdicts
        ),
        examples=examples,
    )


def by_id(verdicts: Sequence[RecordVerdict]) -> Mapping[str, RecordVerdict]:
    return {rv.id: rv for rv in verdicts}


def is_advisory(rv: RecordVerdict) -> bool:
    """A spec record whose words carry no keyword (level `guidance`): its departure informs, it does not gate.
    An error running its test still gates: that says nothing about the server's words."""
    if rv.kind != "spec" or rv.verdict != "deviates":
        return False
    try:
        return default_spec_catalog().get(rv.id).level in ADVISORY_LEVELS
    except KeyError:
        return False
