"""A difference that lands beside whichever request is current when it arrives (a stderr line, a message the
server sends of its own) is grouped by what differs, never by the request it sat beside (gate/evidence.py,
issues 42 and 43): under load a box written late is read beside the next request, a notification sent on
`initialized` beside the tool list or the first call. Before, a record whose stderr line landed beside the
tool list was refused its cause (a call's pair), and two strays showing the same line beside requests of two
classes opened no cause together: the grouping depended on the machine's load."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import UNASKED, Evidence, RecordVerdict, RootCause, TestRef

REQUESTS = ["initialize (request 1)", "tools/list (request 2)", "tools/call 1", "tools/call 2",
            "tools/call 3"]
BOX = "stderr: 6 lines on each side; changes line 3 “│ 💭 Thought 1/1 │” to “│ 💭 Thought 1/1 [draft] │”"
LOG = "stderr: 3 lines here where the original has 2; adds “WARN thought 3: totalThoughts 2 raised to 3”"
SENT = (f'{UNASKED}none on the original, '
        '[{"method":"notifications/tools/list_changed","jsonrpc":"2.0"}] here')
OTHER_SENT = SENT.replace("tools/list_changed", "resources/list_changed")
FIELD = "result → content[0].text → draft: absent on the original, true here"
REFUSED = "the original accepts this call and this server refuses it — “Invalid thought: must be a string”"
LANDED = [BOX, LOG, SENT, OTHER_SENT]
DIFFERENCES = st.sampled_from([*LANDED, FIELD, REFUSED])


def _pair(difference: str, where: int, beside: list[str]) -> Evidence:
    return Evidence(reproduced=True, at=f"on the example's {REQUESTS[where]}",
                    differences=[difference, *beside], original='{"result":{}}', target='{"result":{}}')


def _record(rid: str, evidence: Evidence, names: list[str], explained_by: str | None) -> RecordVerdict:
    said = evidence.differences[0].partition(": ")[2]
    test = TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=names,
                   message=f"stderr or the answer differs: {said}")
    return RecordVerdict(id=rid, kind="cmp", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", evidence=evidence, tests=[test],
                         explained_by=explained_by)


Case = tuple[str, int, str, int, bool, str, int, int, list[str]]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    """A cause's pair, a record proposed under it (its check naming the cause's record, or not), and a stray
    whose pair shows a difference too, each at some request of the example."""
    return (draw(DIFFERENCES), draw(st.integers(0, 4)), draw(DIFFERENCES), draw(st.integers(0, 4)),
            draw(st.booleans()), draw(DIFFERENCES), draw(st.integers(0, 4)), draw(st.integers(0, 4)),
            draw(st.lists(DIFFERENCES, max_size=2)))


Grouping = tuple[list[tuple[str, tuple[str, ...], tuple[str, ...]]], dict[str, str | None]]


def _grouping(case: Case, moves: tuple[int, int, int]) -> Grouping:
    """The causes and each record's cause, with each landed first difference moved by `moves` requests."""
    lead, lead_at, own, own_at, naming, stray, stray_at, twin_at, beside = case

    def at(difference: str, where: int, move: int) -> int:
        return min(4, max(0, where + move)) if difference in LANDED else where

    lead_pair = _pair(lead, at(lead, lead_at, moves[0]), beside)
    cause = RootCause(id="CMP-5", records=["CMP-5"], explains=["RTE-4"], summary=f"CMP-5 departs — {lead}",
                      evidence=lead_pair.model_copy(update={"cause": "CMP-5"}))
    records = [
        _record("CMP-5", lead_pair, ["CMP-5"], None),
        _record("RTE-4", _pair(own, at(own, own_at, moves[1]), []), ["CMP-5"] if naming else [], "CMP-5"),
        _record("OBJ-9", _pair(stray, at(stray, stray_at, moves[2]), []), [], None),
        _record("ABS-3", _pair(stray, twin_at, []), [], None),
    ]
    causes, out = checked_explanations([cause], records)
    return (sorted((c.id, tuple(c.records), tuple(sorted(c.explains))) for c in causes),
            {rv.id: rv.explained_by for rv in out})


@settings(max_examples=300)
@given(case=cases(), moves=st.tuples(*[st.sampled_from([-1, 1])] * 3))
def test_a_landed_difference_moved_to_the_neighbouring_request_changes_no_grouping(
        case: Case, moves: tuple[int, int, int]) -> None:
    assert _grouping(case, moves) == _grouping(case, (0, 0, 0))


def test_the_same_stderr_line_beside_the_tool_list_is_the_cause_s_change() -> None:
    """The pinned shape: the record's box landed beside the tool list, the cause's beside a call."""
    case: Case = (BOX, 2, BOX, 1, False, FIELD, 2, 3, [])
    assert _grouping(case, (0, 0, 0))[1]["RTE-4"] == "CMP-5"


def test_another_message_sent_unasked_is_another_change_wherever_it_lands() -> None:
    """What differs decides: another unasked message is no change of the cause's, at any request."""
    for where in range(5):
        case: Case = (SENT, 2, OTHER_SENT, where, False, FIELD, 2, 3, [])
        assert _grouping(case, (0, 0, 0))[1]["RTE-4"] is None
