"""The grouping does not depend on the order the records come in (gate/evidence.checked_explanations, issue
43): departures alike open a cause together, and which of them leads it was the one listed first. Shuffled,
held-out-multi-12's fork-paged-history had its description cause led by OBJ-5, OBJ-5/c1 or OBJ-12. The records
are now read in the catalog's order, and come back in the order given."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

IDS = ["CMP-2", "OBJ-5", "OBJ-5/c1", "OBJ-12", "RTE-4", "ABS-3", "BAP-1"]
DIFFERENCES = [
    "description: “A tool.” on the original, “A paged tool.” here",
    "result → content[0].text → historyPages: absent on the original, 2 here",
    "stderr: 6 lines on each side; changes line 3 “│ 💭 Thought 1/1 │” to “│ 💭 Thought 1/1 [draft] │”",
    "the original accepts this call and this server refuses it — “Invalid thought: too long” (isError)",
]
WHERE = ["tools/list (request 2)", "tools/call 1", "tools/call 2"]


def _record(rid: str, difference: str, where: str, names: list[str]) -> RecordVerdict:
    evidence = Evidence(reproduced=True, at=f"on the example's {where}", differences=[difference],
                        original="", target="")
    test = TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=names,
                   message=f"the answer differs: {difference.partition(': ')[2]}")
    return RecordVerdict(id=rid, kind="cmp", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", evidence=evidence, tests=[test])


@st.composite
def departures(draw: st.DrawFn) -> list[RecordVerdict]:
    """Departures whose pairs show a few differences at a few requests, some naming themselves."""
    ids = draw(st.lists(st.sampled_from(IDS), min_size=2, max_size=len(IDS), unique=True))
    return [_record(rid, draw(st.sampled_from(DIFFERENCES)), draw(st.sampled_from(WHERE)),
                    [rid] if draw(st.booleans()) else []) for rid in ids]


def _grouping(causes: list[RootCause], records: list[RecordVerdict]) -> tuple[object, ...]:
    out_causes, out = checked_explanations(causes, records)
    return (sorted((c.id, tuple(c.records), tuple(sorted(c.explains)), c.summary) for c in out_causes),
            sorted((rv.id, rv.explained_by or "") for rv in out))


@given(records=departures(), data=st.data())
def test_the_records_order_changes_no_grouping(records: list[RecordVerdict], data: st.DataObject) -> None:
    shuffled = data.draw(st.permutations(records))
    assert _grouping([], shuffled) == _grouping([], records)
    assert [rv.id for rv in checked_explanations([], shuffled)[1]] == [rv.id for rv in shuffled]


def test_two_departures_alike_open_one_cause_led_by_the_catalog_s_first() -> None:
    """The pinned shape: two tool-list departures alike, neither named; the catalog lists CMP-2 first."""
    one, two = (_record(rid, DIFFERENCES[0], WHERE[0], []) for rid in ("OBJ-12", "CMP-2"))
    for records in ([one, two], [two, one]):
        causes, _ = checked_explanations([], records)
        assert [(c.id, c.explains) for c in causes] == [("CMP-2", ["OBJ-12"])]
