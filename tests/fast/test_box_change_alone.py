"""A box changed in its words is a change of its own (gate/evidence.py `split_off`, issue 42, round 14): a
departure whose proposed cause its check refused, whose own line speaks of the box and whose own pair is one
box line changed in more than its numbers opens a cause, where it kept a loose line before.

Held-out-multi-8's annotated-thoughts, once the probes sent its `kind` argument and isRevision "false"
(calls/probes.py): OBJ-13 (“│ 💭 Thought 2/3 │” drawn “│ 💭 Thought 2/3 [hypothesis] │”) and RTE-9/a1 (a
revision drawn as a thought) were proposed under RTE-3, the fork's ten-line refusal, refused there by their
own pairs, and left as loose lines: two of its four changes unnamed. Built on that kept run's pairs.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

REFUSAL = ("the original accepts this call and this server refuses it — “Invalid thought: at most 10 lines” "
           "(isError)")


def _box(before: str, after: str) -> str:
    return f"stderr: 6 lines on each side; changes line 3 “│ {before} │” to “│ {after} │”"


def _pair(difference: str, call: int) -> Evidence:
    return Evidence(reproduced=True, at=f"on the example's tools/call {call}", differences=[difference])


def _record(rid: str, evidence: Evidence, message: str, contradicted: list[str],
            by: str | None) -> RecordVerdict:
    test = TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=contradicted,
                   message=message)
    return RecordVerdict(id=rid, kind="obj", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["stderr"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", evidence=evidence, tests=[test], reason=message,
                         explained_by=by)


def _grouped(after: str, before: str = "💭 Thought 2/3") -> tuple[list[str], dict[str, str | None]]:
    """The causes' records and each record's cause, with RTE-3's refusal the proposed cause of OBJ-13."""
    refused = _pair(REFUSAL, 8)
    cause = RootCause(id="RTE-3", records=["RTE-3"], explains=["OBJ-13"],
                      summary=f"RTE-3 departs — {REFUSAL}",
                      evidence=refused.model_copy(update={"cause": "RTE-3"}))
    header = f"the box's header reads “{after}”, not “{before}”"
    records = [_record("RTE-3", refused, f"RTE-3 contradicted: call was refused as invalid: {REFUSAL}",
                       ["RTE-3"], None),
               _record("OBJ-13", _pair(_box(before, after), 4), header, [], "RTE-3")]
    causes, out = checked_explanations([cause], records)
    return [r for c in causes for r in c.records], {rv.id: rv.explained_by for rv in out}


@given(suffix=st.sampled_from([" [hypothesis]", " [verification]", " (kind: plan)", " #1"]),
       number=st.integers(min_value=1, max_value=999))
def test_a_header_changed_in_its_words_opens_a_cause_of_its_own(suffix: str, number: int) -> None:
    """Before: OBJ-13 stayed loose (no cause, no "explained by"), so the change was named by no cause."""
    causes, explained = _grouped(f"💭 Thought {number}/{number}{suffix}", f"💭 Thought {number}/{number}")
    assert "OBJ-13" in causes and "RTE-3" in causes, causes
    assert explained["OBJ-13"] is None


def test_a_caption_changed_in_its_words_opens_a_cause() -> None:
    causes, _ = _grouped("💭 Thought 2/3", "🔄 Revision 2/3 (revising thought undefined)")
    assert "OBJ-13" in causes


@given(before=st.integers(min_value=1, max_value=999), after=st.integers(min_value=1, max_value=999))
def test_a_header_changed_in_its_numbers_only_opens_none(before: int, after: int) -> None:
    """A total or a number drawn otherwise is the total's or the number's change, which other records say
    (held-out-multi-5's zero-based fork: RTE-9/a1's “Revision 1/1” drawn “Revision 1/2”, RTE-4's change)."""
    causes, explained = _grouped(f"🔄 Revision 1/{after}", f"🔄 Revision 1/{before}")
    assert causes == ["RTE-3"] and explained["OBJ-13"] is None
