"""Behaviour-pinned baselines, through the API: the witness data, signatures, format /1 and /2, the gate.

Signatures computed on real server processes (`witness_signatures`, never on mocks) are checked in
tests/e2e/test_baseline_signatures.py; the end-to-end command line in tests/e2e/test_baseline_cli.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.catalog.records import default_catalog
from conformance.catalog.witnesses import WitnessError, default_witnesses, load_witnesses, witnesses_path
from conformance.gate.baseline import (
    BASELINE_FORMAT,
    BASELINE_FORMAT_1,
    BASELINE_FORMAT_2,
    Baseline,
    BaselineEntry,
    BaselineError,
    check_project,
    check_spec,
    dump_baseline,
    evaluate_gate,
    load_baseline,
)
from conformance.gate.canonical import short_json
from conformance.gate.signatures import signature_of
from conformance.report.model import RecordVerdict, WitnessAnswer

REPO = Path(__file__).resolve().parents[2]
CANONICAL = {r.id: r.id for r in default_catalog().records}


def test_every_record_observable_on_the_wire_or_stderr_has_witnesses() -> None:
    witnesses = default_witnesses()
    for record in default_catalog().records:
        if record.kind == "spec":
            continue  # judged on each era's meeting (suite/era_meetings.py), not on replayed witness steps
        if record.observable and {"wire", "stderr"} & set(record.channels):
            assert witnesses.steps_of(record.id), record.id


def test_records_may_not_share_a_branch_label(tmp_path: Path) -> None:
    data = yaml.safe_load(witnesses_path().read_text(encoding="utf-8"))
    data["steps"]["shared"] = {
        "call": {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": True,
                 "branchFromThought": 1, "branchId": "same"}
    }
    data["records"]["RTE-6"].append("shared")
    data["records"]["OBJ-3"].append("shared")
    path = tmp_path / "witnesses.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(WitnessError, match="'same' is filed by"):
        load_witnesses(path)


def test_signature_covers_step_names_and_answers() -> None:
    one = signature_of([("plain", {"result": 1})])
    assert one == signature_of([("plain", {"result": 1})])
    assert one != signature_of([("other", {"result": 1})])
    assert one != signature_of([("plain", {"result": 2})])
    assert len(one) == 64


def test_long_answers_are_shortened_with_their_digest() -> None:
    shown = short_json({"description": "x" * 5000})
    assert len(shown) < 400 and "5000 chars, sha256" in shown


def _verdict(record: str, signature: str | None, answer: str = "a") -> RecordVerdict:
    return RecordVerdict(
        id=record, kind="rte", aliases=[], anchors=[], statement="s", channels=["wire"], verdict="deviates",
        evidence_before="implemented", evidence_after="observed", signature=signature,
        witness=[WitnessAnswer(step="plain", answer=answer), WitnessAnswer(step="same", answer="x")],
    )


def _baseline(signature: str | None, answer: str = "a") -> Baseline:
    witness = [WitnessAnswer(step="plain", answer=answer), WitnessAnswer(step="same", answer="x")]
    entry = BaselineEntry(record="RTE-3", reason="validation moved into the SDK", signature=signature,
                          witness=witness if signature else [])
    return Baseline(project="p", deviations=[entry])


def test_a_departure_whose_signature_changed_fails_the_gate() -> None:
    gate = evaluate_gate([_verdict("RTE-3", "b" * 64, "new")], _baseline("a" * 64, "old"),
                         baseline_path="b.yaml", canonical=CANONICAL)
    assert not gate.passed and not gate.expected
    [entry] = gate.changed
    assert entry.record == "RTE-3" and entry.reason == "validation moved into the SDK"
    assert [(w.step, w.answer) for w in entry.before] == [("plain", "old")]
    assert [(w.step, w.answer) for w in entry.after] == [("plain", "new")]


def test_same_signature_or_an_unpinned_entry_passes() -> None:
    for baseline in (_baseline("b" * 64), _baseline(None)):
        gate = evaluate_gate([_verdict("RTE-3", "b" * 64)], baseline, baseline_path="b.yaml",
                             canonical=CANONICAL)
        assert gate.passed and [e.record for e in gate.expected] == ["RTE-3"], gate


def test_a_pinned_departure_without_a_signature_is_not_confirmed() -> None:
    gate = evaluate_gate([_verdict("RTE-3", None)], _baseline("b" * 64), baseline_path="b.yaml",
                         canonical=CANONICAL)
    assert not gate.passed and [e.record for e in gate.unconfirmed] == ["RTE-3"]


V1_BASELINE = """\
# Records this target is expected to depart from, each with why.
format: seqthink-conformance-baseline/1
target: npm:2026.8.31
deviations:
- record: CMP-2
  reason: the served tool carries new keys (title, annotations, execution, outputSchema)
  verdict: deviates
- record: RTE-3
  reason: 'validation moved into the SDK''s schema check'
  verdict: deviates
- record: EPI-3
  reason: an alias, as /1 files may list them
"""
"""The head of the /1 file this project shipped for npm:2026.8.31 before /2 (an alias added)."""


def test_a_v1_baseline_still_loads_unpinned_and_for_its_target_only(tmp_path: Path) -> None:
    path = tmp_path / "v1.yaml"
    path.write_text(V1_BASELINE, encoding="utf-8")
    baseline = load_baseline(path)
    assert baseline.format == BASELINE_FORMAT_1 and baseline.target == "npm:2026.8.31"
    assert baseline.project is None and len(baseline.deviations) == 3
    assert all(e.signature is None and e.witness == [] for e in baseline.deviations)
    check_spec(baseline, path, "npm:2026.8.31")
    with pytest.raises(BaselineError, match=re.escape("is for target 'npm:2026.8.31', not 'npm:2026.9.1'")):
        check_spec(baseline, path, "npm:2026.9.1")
    unformatted = yaml.safe_load(V1_BASELINE)
    del unformatted["format"]
    path.write_text(yaml.safe_dump(unformatted), encoding="utf-8")
    assert load_baseline(path).format == BASELINE_FORMAT_1
    gate = evaluate_gate([_verdict("RTE-3", "d" * 64)], load_baseline(path), baseline_path="v1.yaml",
                         canonical={**CANONICAL, "EPI-3": "ABS-12"})
    assert not gate.changed and [e.record for e in gate.expected] == ["RTE-3"]


def test_a_v2_baseline_for_another_project_is_refused() -> None:
    baseline = _baseline("c" * 64)
    check_project(baseline, Path("b.yaml"), "cmd:node x.js", "p")
    check_project(baseline, Path("b.yaml"), "cmd:node x.js", None)
    with pytest.raises(BaselineError, match=re.escape("is for project 'p', but target npm:1.0.0 is 'q'")):
        check_project(baseline, Path("b.yaml"), "npm:1.0.0", "q")


def test_v2_baseline_round_trips_and_needs_a_project(tmp_path: Path) -> None:
    baseline = _baseline("c" * 64)
    path = tmp_path / "v2.yaml"
    path.write_text(dump_baseline(baseline), encoding="utf-8")
    assert load_baseline(path) == baseline and baseline.format == BASELINE_FORMAT
    path.write_text(yaml.safe_dump({"format": BASELINE_FORMAT, "deviations": []}), encoding="utf-8")
    with pytest.raises(BaselineError, match="needs `project:`"):
        load_baseline(path)
    path.write_text(yaml.safe_dump({"format": BASELINE_FORMAT, "project": "p", "deviations": [
        {"record": "RTE-3", "reason": "r", "signature": "not-a-digest"}]}), encoding="utf-8")
    with pytest.raises(BaselineError, match="signature"):
        load_baseline(path)


@settings(max_examples=20, deadline=None)
@given(blank=st.integers(0, 6), size=st.integers(1, 7))
def test_an_error_counts_the_baseline_s_entries_from_1(tmp_path_factory: pytest.TempPathFactory, blank: int,
                                                       size: int) -> None:
    """The entry a maintainer must fix is named as they count it (the second is entry 2), beside its index."""
    blank = blank % size
    entries = [{"record": f"RTE-{i}", "reason": "   " if i == blank else "why"} for i in range(size)]
    path = tmp_path_factory.mktemp("baseline") / "b.yaml"
    path.write_text(yaml.safe_dump({"format": BASELINE_FORMAT, "project": "p", "deviations": entries}),
                    encoding="utf-8")
    with pytest.raises(BaselineError) as raised:
        load_baseline(path)
    assert f": deviations[{blank}].reason (entry {blank + 1} of deviations): " in str(raised.value)


def test_the_shipped_2026_8_31_baseline_is_v2_and_pinned() -> None:
    baseline = load_baseline(REPO / "fixtures" / "baselines" / "npm-2026.8.31.yaml")
    assert baseline.format == BASELINE_FORMAT_2  # written as /2, read as it was (/3 adds `explains`)
    assert baseline.project == "@modelcontextprotocol/server-sequential-thinking"
    assert all(e.signature and e.witness for e in baseline.deviations)
    assert "TODO" not in dump_baseline(baseline)


def test_baseline_schema_is_the_models_and_the_shipped_baseline_conforms() -> None:
    """fixtures/schemas/baseline.schema.json is generated from `Baseline` (regenerate it from
    `Baseline.model_json_schema()` after a change); every shipped baseline validates against it."""
    schema = json.loads((REPO / "fixtures" / "schemas" / "baseline.schema.json").read_text(encoding="utf-8"))
    generated = {k: v for k, v in schema.items() if k not in ("$schema", "$id", "description")}
    expected = {k: v for k, v in Baseline.model_json_schema().items() if k != "description"}
    assert generated == expected
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted((REPO / "fixtures" / "baselines").glob("*.yaml")):
        validator.validate(yaml.safe_load(path.read_text(encoding="utf-8")))
