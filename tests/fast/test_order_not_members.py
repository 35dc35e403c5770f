"""A list whose items only moved explains no departure of that list holding an item more (issue 42,
held-out-multi-11's branch-explorer: a made-up label "from-6", filed for a branchFromThought without a
branchId, went under the cause of labels listed most recent first, and the change was never named). A
departure whose own pair shows the same items moved stays under the order's cause."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause
from tests.verdicts import cause

_LABEL = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12)
"""A branch label as the suite files them."""


def _pair(*differences: str) -> Evidence:
    return Evidence(reproduced=True, at="on the example's tools/call 2", original_spec="npm:0.6.2",
                    differences=list(differences))


def _moved(first: str, second: str) -> list[str]:
    """Two labels swapped in the answer's branches."""
    return [f"result.content[0].text → branches[0]: “{first}” on the original, “{second}” here",
            f"result.content[0].text → branches[1]: “{second}” on the original, “{first}” here"]


def _record(rid: str, evidence: Evidence, reason: str, explained_by: str | None = None) -> RecordVerdict:
    return RecordVerdict(id=rid, kind="obj", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         evidence=evidence, reason=reason, explained_by=explained_by)


def _placed(first: str, second: str, own: Evidence) -> str | None:
    order = _pair(*_moved(first, second))
    led: RootCause = cause("OBJ-4/a1", ["RTE-6/a1"], f"branches[0]: “{first}” on the original, “{second}” "
                           "here; and 1 more beside it: branches[1]").model_copy(update={"evidence": order})
    lead = _record("OBJ-4/a1", order, f"OBJ-4/a1 contradicted: the answer reports branches in the order "
                   f"[\"{second}\", \"{first}\"], not [\"{first}\", \"{second}\"]")
    follower = _record("RTE-6/a1", own, "label appeared: branches [\"made\"], not []",
                       explained_by="OBJ-4/a1")
    _, records = checked_explanations([led], [lead, follower])
    return {rv.id: rv.explained_by for rv in records}["RTE-6/a1"]


@given(first=_LABEL, second=_LABEL, made=_LABEL, before=st.integers(min_value=0, max_value=50))
def test_an_item_added_is_not_an_order_changed(first: str, second: str, made: str, before: int) -> None:
    if first == second:
        return
    added = _pair(f"result.content[0].text → branches: {before} item(s) on the original, {before + 1} here: "
                  f"“{made}” added")
    assert _placed(first, second, added) != "OBJ-4/a1"


@given(first=_LABEL, second=_LABEL)
def test_the_same_items_moved_stay_under_the_order(first: str, second: str) -> None:
    if first == second:
        return
    assert _placed(first, second, _pair(*_moved(first, second))) == "OBJ-4/a1"
