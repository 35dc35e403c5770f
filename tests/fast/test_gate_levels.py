"""How a spec record's level feeds the gate: a departure from `guidance` (words with no RFC keyword, e.g. an
unknown tool as a protocol error) is reported and never fails the gate by default; MUST, SHOULD and schema
records gate as before, and a baseline entry for a guidance record is weighed like any other."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from conformance.catalog.records import default_catalog
from conformance.catalog.spec_records import default_spec_catalog
from conformance.gate.baseline import evaluate_gate, parse_baseline
from conformance.gate.verdicts import alias_map
from conformance.report.model import RecordVerdict
from conformance.report.text import departures_sentence, gate_sentence

CANONICAL = alias_map(default_catalog().records)
LEVELS = {r.id: r.level for r in default_spec_catalog().records}


def _verdict(record: str, verdict: Any = "deviates") -> RecordVerdict:
    return RecordVerdict(id=record, kind="spec", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict=verdict, evidence_before="doctrine/design", evidence_after="observed",
                         reason="answered otherwise")


@pytest.mark.parametrize("record", sorted(LEVELS, key=lambda r: int(r.split("-")[1])))
def test_only_guidance_departures_leave_the_gate_passing(record: str) -> None:
    gate = evaluate_gate([_verdict(record)], None, baseline_path=None, canonical=CANONICAL)
    if LEVELS[record] == "guidance":
        assert gate.passed and [e.record for e in gate.advisory] == [record] and not gate.unexpected
        assert record in gate_sentence(gate) and "no gating record departs" in gate_sentence(gate)
        assert departures_sentence(gate, 1) == (
            "1 departure: 0 new (no baseline given), 1 from guidance stated without a keyword (not gating)")
    else:
        assert not gate.passed and [e.record for e in gate.unexpected] == [record] and not gate.advisory


def test_the_guidance_records_are_the_ones_without_a_keyword() -> None:
    assert sorted(r for r, level in LEVELS.items() if level == "guidance") == ["SPEC-12", "SPEC-14", "SPEC-9"]


def test_an_error_running_a_guidance_check_still_gates() -> None:
    gate = evaluate_gate([_verdict("SPEC-12", "error")], None, baseline_path=None, canonical=CANONICAL)
    assert not gate.passed and [e.record for e in gate.unexpected] == ["SPEC-12"]


def test_a_baselined_guidance_departure_is_expected_and_goes_stale_when_it_holds() -> None:
    baseline = parse_baseline(yaml.safe_dump({
        "format": "seqthink-conformance-baseline/4", "project": "p",
        "deviations": [{"record": "SPEC-12", "reason": "isError for an unknown tool, as every release"}],
    }), "b")
    departs = evaluate_gate([_verdict("SPEC-12")], baseline, baseline_path="b", canonical=CANONICAL)
    assert departs.passed and [e.record for e in departs.expected] == ["SPEC-12"] and not departs.advisory
    holds = evaluate_gate([_verdict("SPEC-12", "holds")], baseline, baseline_path="b", canonical=CANONICAL)
    assert not holds.passed and [e.record for e in holds.stale] == ["SPEC-12"]


def test_a_guidance_departure_is_never_a_root_cause() -> None:
    """Every release and the original depart from SPEC-12 (an unknown tool answered with isError): it is no
    fork's behaviour change, so it must not lead a fork's root causes beside its real changes."""
    from conformance.core.identity import HarnessIdentity, TargetIdentity
    from conformance.core.results import RunResults, TestOutcome
    from conformance.gate.rootcauses import find_root_causes

    guidance = next(r for r, level in LEVELS.items() if level == "guidance")
    must = next(r for r, level in LEVELS.items() if level == "MUST")
    tests = [TestOutcome(nodeid=f"suite/test_spec.py::test_{r}", records=[r], status="failed",
                         message=f"AssertionError: {r} answered otherwise than its words")
             for r in (guidance, must)]
    harness = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3")
    results = RunResults(target=TargetIdentity(spec="cmd:x", kind="cmd", command=["x"]), harness=harness,
                         started="", finished="", tests=tests)
    causes, _ = find_root_causes([_verdict(guidance), _verdict(must)], results, CANONICAL)
    assert [c.records for c in causes] == [[must]], causes
