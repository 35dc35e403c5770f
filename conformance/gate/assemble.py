"""From a run's results, the catalog, the baseline and the findings file to one `Report`."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import RunResults
from conformance.gate.baseline import DEPARTURES, Baseline, evaluate_gate
from conformance.gate.findings import FindingsFile, resolve_findings
from conformance.gate.pinned import PinnedReplay, replay_pinned, settle_unlisted
from conformance.gate.pinned_pairs import met_pairs
from conformance.gate.preflight_departures import with_preflight_departure
from conformance.gate.rootcauses import find_root_causes
from conformance.gate.signatures import Exhaustion, RecordSignature
from conformance.gate.verdicts import CatalogRecord, is_advisory, judge, judge_claims, summarize
from conformance.report.model import Gate, Preflight, RecordVerdict, Report, RunInfo, StoreGrowth


@dataclass(frozen=True)
class TargetSeen:
    """What the run learned about the target outside the suite: identity, preflight, handshake."""

    identity: TargetIdentity
    preflight: Preflight
    server_info: Mapping[str, str]
    protocol_version: str | None


def assemble_report(
    *,
    catalog: Sequence[CatalogRecord],
    canonical: Mapping[str, str],
    results: RunResults | None,
    seen: TargetSeen,
    harness: HarnessIdentity,
    run: RunInfo,
    generated: str,
    baseline: Baseline | None = None,
    baseline_path: str | None = None,
    findings: FindingsFile | None = None,
    not_run_reason: str = "no test evidences this record",
    sign: Callable[[list[str]], Mapping[str, RecordSignature]] | None = None,
    not_selected: Collection[str] = (),
    strict: bool = False,
    sign_original: Callable[[list[str]], Mapping[str, RecordSignature]] | None = None,
    evidence: Callable[[Report], Report] | None = None,
    exhausted: Callable[[], Exhaustion | None] | None = None,
    foresee: Callable[[Report], None] | None = None,
) -> Report:
    """`sign`, when given, computes the behaviour signatures of the departures (gate/signatures.py); the
    gate weighs only selected records (a baseline entry of one `not_selected` neither passes nor fails). With
    `sign_original` too (the original's signatures), the baseline's pinned witnesses are replayed before the
    gate judges stale and new departures (gate/pinned.py). `evidence`, when given, replays each departure's
    example on fresh processes (gate/evidence.py); the gate then weighs each unlisted departure by what the
    replays confirmed (`settle_unlisted`), and is judged again; `exhausted` (asked only when an unlisted
    departure may be one) says which refusal a fresh process of the target gives once its state ran out.
    `foresee`, when given with `sign`, is shown the report as it stands before the signatures (the same
    records and root causes, unsigned), so that the evidence's replays start while the witnesses are asked."""
    ran = results is not None
    results = with_preflight_departure(results, seen.preflight, seen.identity, harness, generated)
    verdicts = judge(catalog, results, not_run_reason=not_run_reason, not_selected=not_selected)
    # The root causes read the verdicts and the tests' failures, never a signature: found before signing.
    root_causes, explained_by = find_root_causes(verdicts, results, canonical)
    verdicts = [
        rv.model_copy(update={"explained_by": explained_by[rv.id]}) if rv.id in explained_by else rv
        for rv in verdicts
    ]
    left_out = set(not_selected)
    usable = seen.preflight.ok and ran and not run.interrupted
    replay = PinnedReplay()

    def judged(records: Sequence[RecordVerdict], covered: Mapping[str, str],
               seen_once: Mapping[str, str], reobserved: Mapping[str, str] | None = None) -> Gate:
        gate = evaluate_gate(records, baseline, baseline_path=baseline_path, canonical=canonical,
                             strict=strict, reobserved={**(reobserved or {}), **replay.reobserved},
                             covered=covered, seen_once=seen_once)
        if not usable:
            gate = Gate(baseline=gate.baseline, passed=False, expected=gate.expected,
                        unconfirmed=gate.unconfirmed, unexplained=gate.unexplained)
        return gate

    def made(verdicts: list[RecordVerdict], gate: Gate) -> Report:
        found, unregistered = resolve_findings(
            findings or FindingsFile(), seen.identity.spec, verdicts, canonical
        )
        tests = results.tests if results is not None else []
        server_info = dict(seen.server_info)
        if results is not None:
            server_info.update(results.server_info)
        return Report(
            generated=generated,
            target=seen.identity,
            server_info=server_info,
            protocol_version=(results.protocol_version if results is not None else None)
            or seen.protocol_version,
            eras=dict(results.eras) if results is not None else {},
            era_meets=dict(results.era_meets) if results is not None else {},
            harness=harness,
            preflight=seen.preflight,
            run=run,
            summary=summarize(verdicts, examples=sum(t.examples for t in tests)),
            gate=gate,
            records=verdicts,
            claims=judge_claims(catalog, results),
            findings=found,
            unregistered_deviations=unregistered,
            growth=[
                StoreGrowth(test=t.nodeid, records=t.records, points=t.growth) for t in tests if t.growth
            ],
            root_causes=root_causes,
        )

    if sign is not None:
        if foresee is not None:
            foresee(made(verdicts, judged([rv for rv in verdicts if rv.id not in left_out], {}, {})))
        verdicts = signed(verdicts, sign)
    weighed = [rv for rv in verdicts if rv.id not in left_out]
    if sign is not None and sign_original is not None and ran:
        replay = replay_pinned(weighed, baseline, canonical, sign=sign, sign_original=sign_original)
    report = made(verdicts, judged(weighed, {}, {}))
    if evidence is not None:
        report = evidence(report)
    if replay.own or (baseline is not None and ran):
        evidenced = [rv for rv in report.records if rv.id not in left_out]
        covered, seen_once = (settle_unlisted(evidenced, replay, canonical, exhausted=exhausted)
                              if replay.own else ({}, {}))
        # What this run's departures reproduced, against the pairs the entries pinned (gate/pinned_pairs.py).
        by_pair, reobserved = met_pairs(evidenced, baseline, canonical, {**covered, **seen_once})
        covered = {**by_pair, **covered}
        if covered or seen_once or reobserved:
            report = report.model_copy(update={"gate": judged(evidenced, covered, seen_once, reobserved)})
    return report


def signed(
    verdicts: Sequence[RecordVerdict], sign: Callable[[list[str]], Mapping[str, RecordSignature]]
) -> list[RecordVerdict]:
    """Each departure with its behaviour signature and witness answers (others unchanged). An advisory one
    (guidance the original departs from too) is not signed: a process met again for what never gates.

    An `error` one (the target failed under its test) is signed: no signature changes a verdict (judged
    above), but a baseline entry may pin `verdict: error` with a signature, which the gate compares (an
    unsigned one would be unconfirmed) and a baseline made from this report pins. Its cost is bounded by the
    drivers instead: a witness the target answers with garbage costs the learned stray grace (0.25 s once a
    stray line went unanswered: `drivers/stray_lag.py`), a timeout ends the signing, a death a process."""
    found = sign([rv.id for rv in verdicts if rv.verdict in DEPARTURES and not is_advisory(rv)])
    return [
        rv.model_copy(update={"signature": found[rv.id].signature, "witness": found[rv.id].witness})
        if rv.id in found
        else rv
        for rv in verdicts
    ]
