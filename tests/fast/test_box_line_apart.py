"""A record whose own line and own pair are a box change is not explained by a cause of another change that
one more check of it also saw (issue 42, held-out-multi-10's dashboard: RTE-4's header digits grouped, its
store check naming the slug cause OBJ-4/a1, was listed under the slugs). When the box's changed lines hold the
cause's words (the box draws what the cause changed), it stays the cause's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, TestRef
from tests.verdicts import cause

SLUG = "result.content[0].text → branches[0]: “probe merge” on the original, “probe-merge” here"


def _box(line: str) -> str:
    return (f"stderr: the box is 60 columns wide here, 10 wider than the original's 50; 6 lines on each "
            f"side; changes line 3 “│ 💭 Thought 9/9 │” to “│ {line} │”")


def _pair(difference: str) -> Evidence:
    return Evidence(reproduced=True, at="on the example's tools/call 2", original_spec="npm:0.6.2",
                    differences=[difference])


def _record(box_line: str, header: str) -> RecordVerdict:
    """RTE-4: its header check fails first (its line), its store check names OBJ-4/a1."""
    tests = [TestRef(nodeid="t-header", status="failed", examples=1, message=header),
             TestRef(nodeid="t-store", status="failed", examples=1, contradicted=["OBJ-4/a1"],
                     message='OBJ-4/a1 contradicted: the answer reports branches without ["probe merge"] and '
                             'branches with ["probe-merge"] as well')]
    return RecordVerdict(id="RTE-4", kind="rte", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         evidence=_pair(_box(box_line)), reason=header, tests=tests,
                         explained_by="OBJ-4/a1")


def _explained(box_line: str, header: str) -> str | None:
    slug = cause("OBJ-4/a1", ["RTE-4"], "branches").model_copy(update={"evidence": _pair(SLUG)})
    lead = RecordVerdict(id="OBJ-4/a1", kind="obj", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         evidence=_pair(SLUG), reason=SLUG)
    _, records = checked_explanations([slug], [lead, _record(box_line, header)])
    return {rv.id: rv.explained_by for rv in records}["RTE-4"]


@given(digits=st.integers(min_value=1000, max_value=10**15))
def test_a_box_change_of_its_own_is_not_the_cause_another_check_names(digits: int) -> None:
    grouped = f"{digits:,}"
    header = f"the box's header reads {grouped}/{grouped}, where the original draws {digits}/{digits}"
    assert _explained(f"💭 Thought {grouped}/{grouped}", header) != "OBJ-4/a1"


def test_a_box_drawing_the_causes_words_stays_its() -> None:
    header = "the box's caption reads “probe-merge”, not “probe merge”"
    assert _explained("🌿 Branch 1/1 (from thought 1, ID: probe-merge)", header) == "OBJ-4/a1"
