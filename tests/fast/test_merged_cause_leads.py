"""Causes of one change merged (gate/evidence.py `one_cause_per_change`) are led by the records their own
checks name, not by a record each of whose checks names another of them (issue 42): held-out-multi-13's
client-protocol answered every refusal with JSON-RPC error -32602; OBJ-10, whose check named RTE-8
contradicted, led "RTE-8, LOOP-A, OBJ-10 depart" beside RTE-8."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import one_cause_per_change
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

CODES = st.sampled_from([-32602, -32603, -32000, -32001])
WORDS = st.sampled_from(["Invalid thought: must be a string", "Invalid thoughtNumber: must be a number",
                         "Invalid totalThoughts: must be a number"])
FOLLOWERS = st.lists(st.sampled_from(["OBJ-10", "OBJ-6", "BAP-4", "CLM-2"]), min_size=1, max_size=3,
                     unique=True)


def _record(rid: str, named: list[str], code: int, words: str) -> RecordVerdict:
    message = (f"{', '.join(named) or rid} contradicted: protocol error instead of an isError result: "
               f'JSON-RPC error {code}, "{words}"')
    test = TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=named, message=message)
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", tests=[test], reason=message)


def _cause(rid: str, code: int, words: str) -> RootCause:
    first = f"both refuse in the same words, “{words}” as isError on the original, JSON-RPC error {code} here"
    evidence = Evidence(reproduced=True, at="on the example's tools/call 1", differences=[first])
    return RootCause(id=rid, records=[rid], explains=[], summary=f"{rid} departs — {first}", example=[],
                     test=None, minimized=False, evidence=evidence)


def _merged(lead: str, followers: list[str], code: int, words: str, *, first: bool) -> RootCause:
    ids = [lead, *followers] if first else [*followers, lead]
    records = [_record(lead, [lead], code, words), *(_record(r, [lead], code, words) for r in followers)]
    causes, _ = one_cause_per_change([_cause(r, code, words) for r in ids], records)
    assert len(causes) == 1
    return causes[0]


@given(followers=FOLLOWERS, code=CODES, words=WORDS, first=st.booleans())
def test_records_naming_the_lead_are_explained(followers: list[str], code: int, words: str,
                                               first: bool) -> None:
    merged = _merged("RTE-8", followers, code, words, first=first)
    assert merged.records == ["RTE-8"]
    assert set(followers) <= set(merged.explains)
    assert merged.summary.startswith("RTE-8 departs — ")


@given(code=CODES, words=WORDS)
def test_records_each_naming_itself_both_lead(code: int, words: str) -> None:
    """Two records each named by its own checks are both the change's: both lead, as before."""
    records = [_record("RTE-8", ["RTE-8"], code, words), _record("OBJ-8", ["OBJ-8"], code, words)]
    causes, _ = one_cause_per_change([_cause("RTE-8", code, words), _cause("OBJ-8", code, words)], records)
    assert [c.records for c in causes] == [["RTE-8", "OBJ-8"]]


@given(code=CODES, words=WORDS)
def test_a_record_naming_one_outside_the_cause_does_not_lead(code: int, words: str) -> None:
    """Strict-relations' ABS-12: its check named RTE-3 (another cause's lead), its pair showed the
    revisesThought rule that RTE-8/a1, named by no check but departing in its own words, leads."""
    lead = _record("RTE-8/a1", [], code, words)
    records = [lead, _record("ABS-12", ["RTE-3"], code, words), _record("RTE-3", ["RTE-3"], code, words)]
    paired = [_cause("RTE-8/a1", code, words), _cause("ABS-12", code, words)]
    causes, _ = one_cause_per_change(paired, records)
    assert [(c.records, c.explains) for c in causes] == [(["RTE-8/a1"], ["ABS-12"])]
