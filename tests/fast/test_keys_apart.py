"""A pair showing two keys at once is not one change when neither line says the other's key (issue 42,
held-out-multi-10's revision-ledger: a revision's answer gained `revisionsOfThought` and its count stopped
rising; OBJ-4/a2's count was listed under OBJ-4's key because their replays showed both). When the cause's
own line says the record's key too, the record stays the cause's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause
from tests.verdicts import cause

KEY = "result.content[0].text → revisionsOfThought: absent on the original, 1 here"


def _count(original: int, here: int) -> str:
    return f"result.content[0].text → thoughtHistoryLength: {original} on the original, {here} here"


def _pair(*differences: str) -> Evidence:
    return Evidence(reproduced=True, at="on the example's tools/call 2", original_spec="npm:0.6.2",
                    differences=list(differences))


def _record(rid: str, evidence: Evidence, reason: str, explained_by: str | None = None) -> RecordVerdict:
    return RecordVerdict(id=rid, kind="obj", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         evidence=evidence, reason=reason, explained_by=explained_by)


def _placed(cause_line: str, original: int, here: int) -> str | None:
    pair = _pair(KEY, _count(original, here))
    led: RootCause = cause("OBJ-4", ["OBJ-4/a2"], cause_line).model_copy(update={"evidence": pair})
    lead = _record("OBJ-4", pair, f"OBJ-4 contradicted: {cause_line}")
    counted = _record("OBJ-4/a2", _pair(_count(original, here)),
                      f"thoughtHistoryLength read {here} over 2 accepted calls, where the original adds one "
                      f"per call: {original}", explained_by="OBJ-4")
    _, records = checked_explanations([led], [lead, counted])
    return {rv.id: rv.explained_by for rv in records}["OBJ-4/a2"]


@given(original=st.integers(min_value=2, max_value=10**4), listed=st.booleans())
def test_a_count_beside_an_added_key_is_another_change(original: int, listed: bool) -> None:
    """Also when the cause's headline lists the count among the keys beside its lead (a live run's headline
    "…; and 1 more beside it: thoughtHistoryLength (reproduced …)" held OBJ-4/a2 under OBJ-4)."""
    line = "revisionsOfThought: absent on the original, 1 here" + (
        "; and 1 more beside it: thoughtHistoryLength" if listed else "") + " (reproduced at tools/call 2)"
    assert _placed(line, original, original - 1) != "OBJ-4"


def test_a_cause_whose_line_says_the_count_keeps_it() -> None:
    line = "a revision's answer carries revisionsOfThought and its thoughtHistoryLength does not rise"
    assert _placed(line, 2, 1) == "OBJ-4"
