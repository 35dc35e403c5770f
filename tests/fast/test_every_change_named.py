"""Every change of a fork named (gate/evidence.py, issue 42, round 12): a refusal naming no field is led by
the record stating which calls are refused; departures without a pair of their own go under a cause opened
from those that have one when their checks' words saw it; a check about stderr is not the answer's refusal it
quotes, nor the box; the one departure left with no cause its words saw opens its own."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import _own_words, _tells, checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

CLOSED = ("the original accepts this call and this server refuses it — “Session closed: the last thought "
          "set nextThoughtNeeded to false; start a new session at thoughtNumber 1” (isError)")
SAW_CLOSED = ('call was rejected: isError { "error": "Session closed: the last thought set '
              'nextThoughtNeeded to false; start a new session at thoughtNumber 1", "status": "failed" }')
STATEMENTS = {
    "CMP-1": "A single process-local recorder instance accumulates its state across calls.",
    "RTE-3": ("Four fields are checked in order and the first failure is rejected with a fixed message; the "
              "five optional fields pass unchecked."),
    "OBJ-10": "Of the eight control fields, three are type-checked; the optional fields are taken as sent.",
    "RTE-7": "A successful call returns the status object.",
}


def _record(
    rid: str, evidence: Evidence | None, message: str, explained_by: str | None = None
) -> RecordVerdict:
    refs = [TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=[], message=message)]
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[],
                         statement=STATEMENTS.get(rid, f"statement of {rid}"), channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         explained_by=explained_by, evidence=evidence, tests=refs)


def _pair(*differences: str) -> Evidence:
    return Evidence(reproduced=True, at="on the example's tools/call 2", differences=list(differences))


def _cause(rid: str, explains: list[str], evidence: Evidence | None) -> RootCause:
    return RootCause(id=rid, records=[rid], explains=explains, summary=f"{rid} departs",
                     evidence=None if evidence is None else evidence.model_copy(update={"cause": rid}))


@given(order=st.permutations(["CMP-1", "RTE-3", "OBJ-10", "RTE-7"]))
def test_a_refusal_naming_no_field_is_led_by_the_record_stating_what_is_refused(order: list[str]) -> None:
    """A fork closing a session after a final thought refuses calls the original accepts, in words naming no
    field: whatever order the departures come in, RTE-3 (which calls are rejected) leads the cause, not a
    record the refused call merely reached (CMP-1) nor one saying only what is type-checked (OBJ-10)."""
    records = [_record(rid, _pair(CLOSED), SAW_CLOSED) for rid in order]
    causes, out = checked_explanations([], records)
    assert [c.records for c in causes] == [["RTE-3"]]
    assert {rv.id: rv.explained_by for rv in out} == {rid: (None if rid == "RTE-3" else "RTE-3")
                                                      for rid in order}


@given(own=st.sampled_from([None, Evidence(reproduced=False)]))
def test_a_departure_without_a_pair_goes_under_the_cause_its_words_saw(own: Evidence | None) -> None:
    """ABS-10's sequence was not replayed (budget); its check quotes the “Session closed” refusal, and it was
    proposed under the timestamp's cause, which its check refused: it goes under the refusal's cause, opened
    from the departures with pairs; a check saying something else keeps its own line."""
    stamp = "result.content[0].text → timestamp: absent on the original, “2026-12-06T10:25:04Z” here"
    causes = [_cause("OBJ-4", ["ABS-10"], _pair(stamp))]
    records = [_record("OBJ-4", _pair(stamp), "the answer has a sixth key, timestamp"),
               _record("CMP-1", _pair(CLOSED), SAW_CLOSED), _record("RTE-3", _pair(CLOSED), SAW_CLOSED),
               _record("ABS-10", own, SAW_CLOSED, explained_by="OBJ-4")]
    _, out = checked_explanations(causes, records)
    assert {rv.id: rv.explained_by for rv in out}["ABS-10"] == "RTE-3"
    records[-1] = _record("ABS-10", own, "one append per call: 3 appends, not 4", explained_by="OBJ-4")
    _, out = checked_explanations(causes, records)
    assert {rv.id: rv.explained_by for rv in out}["ABS-10"] is None


def test_a_request_quoted_first_is_not_the_end_of_a_checks_words() -> None:
    """BAP-1 quotes the call it sent, then says it was refused and how: its words go on past the request."""
    said = ('{"thought": "more after done", "thoughtNumber": 2}, a call the rules advise against, was '
            "refused (isError “Session closed: the last thought set nextThoughtNeeded to false”)")
    assert "Session closed" in _own_words(said)
    assert _tells(CLOSED, said, strict=True)
    answer = 'call was rejected: isError { "error": "x" }'
    assert _own_words(answer) == "call was rejected: isError "
    assert _own_words('{"a": 1}') == ""


LOGGED = ("stderr holds more than the banner and one box per accepted call: “ ⏎ Error processing thought: "
          "Invalid thought: must be a string (received \"\") ⏎ ”")
REWORDED = ("the refusal of `thought` is re-worded: this server adds “ (received \"\")” after the original's "
            "“Invalid thought: must be a string”")
BOX = "stderr: the box is 24 columns wide here, 9 narrower than the original's 33; its body draws 2 rows"


def test_a_check_about_stderr_tells_neither_the_refusal_it_quotes_nor_the_box() -> None:
    """A fork logging failures: LOOP-A's check saw a line outside the banner and boxes, quoting the refusal it
    logs; that is neither the re-worded refusal in the answer nor the box; a check quoting a box line with
    the banner in its words still tells the box."""
    assert not _tells(REWORDED, LOGGED, strict=True)
    assert not _tells(BOX, LOGGED, strict=True)
    assert _tells(REWORDED, "refused with “Invalid thought: must be a string (received \"\")”", strict=True)
    assert _tells(BOX, "after the banner, the box “┌──────┐” is narrower", strict=True)


def test_the_one_departure_left_opens_its_own_cause() -> None:
    """ABS-7's check saw the answer's total raised ("8, not 5"), its pair shows only the box of another change
    and its proposed cause was refused: alone so left, it is a change of its own, headed by its check's
    words, its example its own sequence. Two left, one with no sequence to show, or one whose check saw a
    refused call, open none: they keep their own lines."""
    box = _pair(BOX)
    causes = [_cause("CMP-5", ["ABS-7"], box)]
    handshake = ['{"jsonrpc": "2.0", "id": 0, "method": "initialize"}']
    elsewhere = box.model_copy(update={"not_its_failure": True, "example": handshake})
    alone = [_record("CMP-5", box, "the header reads “💭 Thought 2 of ~3” ┌─┐"),
             _record("ABS-7", elsewhere, "the answer reads totalThoughts 8, not 5", explained_by="CMP-5")]
    kept, out = checked_explanations(causes, alone)
    assert [c.id for c in kept] == ["CMP-5", "ABS-7"]
    assert kept[-1].summary == "ABS-7 departs — the answer reads totalThoughts 8, not 5"
    assert kept[-1].example == handshake
    assert {rv.id: rv.explained_by for rv in out}["ABS-7"] is None
    two = [*alone, _record("RTE-6/a1", None, "label appeared: ('#x',) vs ()", explained_by="CMP-5")]
    assert [c.id for c in checked_explanations([_cause("CMP-5", ["ABS-7", "RTE-6/a1"], box)], two)[0]] == [
        "CMP-5"]
    unshown = [alone[0], _record("ABS-7", elsewhere.model_copy(update={"example": []}),
                                 "the answer reads totalThoughts 8, not 5", explained_by="CMP-5")]
    assert [c.id for c in checked_explanations(causes, unshown)[0]] == ["CMP-5"]
    refused = [alone[0], _record("ABS-7", elsewhere, 'call was rejected: isError { "error": "capped" }',
                                 explained_by="CMP-5")]
    assert [c.id for c in checked_explanations(causes, refused)[0]] == ["CMP-5"]


def test_a_departure_whose_check_says_a_causes_headline_goes_under_it() -> None:
    """Two records read the banner alike (CMP-4's cause, RTE-10 left): RTE-10 goes under CMP-4's cause, whose
    headline is its check's very words, and opens no second cause of one change."""
    banner = ("stderr reads “Sequential Thinking MCP Server running on stdio (max thoughts: 50)” before any "
              "request")
    cause = RootCause(id="CMP-4", records=["CMP-4"], explains=["RTE-10"], summary=f"CMP-4 departs — {banner}")
    records = [_record("CMP-4", None, banner), _record("RTE-10", None, banner, explained_by="CMP-4")]
    kept, out = checked_explanations([cause], records)
    assert [c.id for c in kept] == ["CMP-4"]
    assert {rv.id: rv.explained_by for rv in out}["RTE-10"] == "CMP-4"


def _named(rid: str, evidence: Evidence, contradicted: str, message: str, explained_by: str) -> RecordVerdict:
    refs = [TestRef(nodeid=f"t::{rid}{i}", status="failed", examples=1, contradicted=[contradicted],
                    message=message) for i in range(2)]
    return _record(rid, evidence, message, explained_by).model_copy(update={"tests": refs})


def test_a_departure_its_checks_name_broken_opens_its_own_cause() -> None:
    """Timed sessions under load: the idle expiry shows in every check of the shared process ("ABS-11
    contradicted: the count fell"), while each pair shows the answer's added timestamp. ABS-11, its own claim
    broken in its checks' words, opens a cause, and RTE-5, whose checks name ABS-11, goes under it; a check
    that saw a refused call keeps its own line."""
    stamp = "result.content[0].text → timestamp: absent on the original, “2026-12-06T12:42:18Z” here"
    handshake = ['{"jsonrpc": "2.0", "id": 0, "method": "initialize"}']
    elsewhere = Evidence(reproduced=True, at="on the example's tools/call 1", differences=[stamp],
                         not_its_failure=True, example=handshake)
    fell = "ABS-11 contradicted: the shared process answered thoughtHistoryLength 2 after 359"
    causes = [_cause("OBJ-4", ["ABS-11", "RTE-5", "OBJ-2"], _pair(stamp))]
    records = [_record("OBJ-4", _pair(stamp), "the answer has a sixth key, timestamp"),
               _named("ABS-11", elsewhere, "ABS-11", fell, "OBJ-4"),
               _named("RTE-5", elsewhere, "ABS-11", fell, "OBJ-4"),
               _record("OBJ-2", elsewhere, 'call was rejected: isError { "error": "x" }',
                       explained_by="OBJ-4")]
    kept, out = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["OBJ-4", "ABS-11"]
    assert kept[-1].summary.startswith("ABS-11 departs — the shared process answered thoughtHistoryLength")
    assert {rv.id: rv.explained_by for rv in out} == {"OBJ-4": None, "ABS-11": None, "RTE-5": "ABS-11",
                                                      "OBJ-2": None}
