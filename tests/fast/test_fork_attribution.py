"""Forks that change several things at once (issue 42): each departure is named by its own difference, so the
change it belongs to is named too. A tool list that gains a tool and rewords the original's description shows
both differences, each by its field; a zero accepted where the original's falsy guard refuses it is the falsy
guard's record; a refusal in the words of a bound is the store's bound, whichever check met it; a box with
none of the original's labels is the header's wording; a key added to the status object is the object's
shape, wherever it is read."""

from __future__ import annotations

import json
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.strategies import Envelope
from conformance.core.differences import GROWN_LIST, explain
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers.wire import Exchange
from conformance.gate.evidence import _about, _speaks_of, checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef
from conformance.suite.answers import accepted, expect_guards_refuse, falsy_of_its_type, rejected
from conformance.suite.contradiction import Contradiction
from conformance.suite.jsvalues import expected_box
from conformance.suite.render_box import expect_render
from conformance.suite.session import ServerSession

DESCRIPTION = "A tool.\nWhen to use:\n- one\n- two\n- Situations to filter"
SPEC: dict[str, JSON] = {
    "name": TOOL, "description": DESCRIPTION,
    "inputSchema": {"type": "object", "properties": {"thoughtNumber": {"type": "integer", "minimum": 1}}},
}
ADDED: dict[str, JSON] = {"name": "get_thought", "description": "Return a thought.", "inputSchema": {}}


def _tools(*tools: dict[str, JSON]) -> JSON:
    return {"result": {"tools": list(tools)}}


def _forked(description: str | None = None, number_type: str | None = None) -> dict[str, JSON]:
    spec = json.loads(json.dumps(SPEC))
    if description is not None:
        spec["description"] = description
    if number_type is not None:
        spec["inputSchema"]["properties"]["thoughtNumber"]["type"] = number_type
    return cast(dict[str, JSON], spec)


def test_a_tool_added_beside_a_reworded_description_shows_each_change_by_its_field() -> None:
    """The whole list dumped as one difference put the description's and the schema's records under the added
    tool's cause; matched by name, each record finds its own field."""
    changed = _forked(DESCRIPTION.replace("\n- Situations to filter", ""), "number")
    found = explain(_tools(SPEC), _tools(changed, ADDED))
    said = [d.said() for d in found]
    assert said[0].startswith("result.tools[0].description: ") and "Situations to filter" in said[0]
    assert said[1].startswith("result.tools[0].inputSchema.properties.thoughtNumber.type: ")
    assert found[2].kind == GROWN_LIST and "`get_thought` added" in said[2]
    speaks = {rid: [i for i, d in enumerate(found) if _speaks_of(d, _about([rid]))]
              for rid in ("RTE-1", "OBJ-5", "OBJ-7")}
    assert speaks == {"RTE-1": [2], "OBJ-5": [0, 2], "OBJ-7": [1]}


@given(st.booleans(), st.booleans(), st.booleans())
def test_named_items_are_matched_by_name_whatever_else_changed(
    reword: bool, retype: bool, dropped: bool
) -> None:
    changed = _forked(DESCRIPTION + "\n- more" if reword else None, "number" if retype else None)
    theirs, ours = ([SPEC, ADDED], [changed]) if dropped else ([SPEC], [changed, ADDED])
    found = explain(_tools(*theirs), _tools(*ours))
    paths = [d.path for d in found]
    assert ("result.tools[0].description" in paths) == reword
    assert ("result.tools[0].inputSchema.properties.thoughtNumber.type" in paths) == retype
    assert [d.said().rsplit(" ", 1)[-1] for d in found if d.kind == GROWN_LIST] == [
        "dropped" if dropped else "added"]


def test_records_of_one_tool_list_are_judged_apart() -> None:
    """The added tool's cause does not hold the description's record: its own pair differs at the
    description."""
    found = explain(_tools(SPEC), _tools(_forked(DESCRIPTION.replace("\n- Situations to filter", "")), ADDED))
    listing, description = found[-1].said(), found[0].said()
    at = "on the example's tools/list (request 2)"
    cause = RootCause(id="RTE-1", records=["RTE-1"], explains=["OBJ-5"], summary="RTE-1 departs",
                      evidence=Evidence(reproduced=True, at=at, differences=[listing], cause="RTE-1"))
    records = [_record("RTE-1", None, Evidence(reproduced=True, at=at, differences=[listing])),
               _record("OBJ-5", "RTE-1", Evidence(reproduced=True, at=at, differences=[description]))]
    causes, out = checked_explanations([cause], records)
    assert [c.id for c in causes] == ["RTE-1", "OBJ-5"]
    assert {rv.id: rv.explained_by for rv in out} == {"RTE-1": None, "OBJ-5": None}


def _record(rid: str, explained_by: str | None, evidence: Evidence) -> RecordVerdict:
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", explained_by=explained_by, evidence=evidence,
                         tests=[TestRef(nodeid=f"t::{rid}", status="failed", examples=1)])


def test_a_key_added_to_the_status_object_speaks_of_the_record_counting_its_keys() -> None:
    def answer(status: dict[str, JSON]) -> JSON:
        return {"result": {"content": [{"type": "text", "text": json.dumps(status)}]}}

    added = explain(answer({"a": 1}), answer({"a": 1, "thoughtsRemaining": 0}))
    spoken = [_speaks_of(added[0], _about([rid])) for rid in ("OBJ-4", "RTE-4", "OBJ-1/a1")]
    assert spoken == [True, False, False]


def _answer(arguments: dict[str, JSON], status: dict[str, JSON], *, refused: bool = False,
            stderr: str = "") -> Exchange:
    result: dict[str, JSON] = {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]}
    if refused:
        result["isError"] = True
    request: dict[str, JSON] = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                "params": {"name": TOOL, "arguments": arguments}}
    return Exchange("tools/call", request, {"jsonrpc": "2.0", "id": 2, "result": result}, stderr.encode(),
                    0.0, 0.0)


def _status(arguments: dict[str, JSON]) -> dict[str, JSON]:
    return {"thoughtNumber": arguments.get("thoughtNumber", 1), "totalThoughts": 1,
            "nextThoughtNeeded": True, "branches": [], "thoughtHistoryLength": 1}


FALSY = st.sampled_from([("thought", ""), ("thoughtNumber", 0), ("totalThoughts", 0),
                         ("totalThoughts", -0.0)])
MISTYPED = st.sampled_from([("thought", None), ("thoughtNumber", "1"), ("totalThoughts", "0"),
                            ("totalThoughts", False), ("thoughtNumber", None)])


@given(FALSY)
def test_a_falsy_value_of_its_type_accepted_is_the_falsy_guards(case: tuple[str, JSON]) -> None:
    field, value = case
    arguments = {**Envelope("t", 1, 1, True).arguments(), field: value}
    assert falsy_of_its_type(field, value)
    with pytest.raises(Contradiction) as raised:
        expect_guards_refuse(_answer(arguments, _status(arguments)))
    assert raised.value.record == "RTE-3/a1"


@given(MISTYPED)
def test_a_missing_or_mistyped_value_accepted_is_the_guards_own(case: tuple[str, JSON]) -> None:
    field, value = case
    arguments = {**Envelope("t", 1, 1, True).arguments(), field: value}
    assert not falsy_of_its_type(field, value)
    with pytest.raises(Contradiction) as raised:
        expect_guards_refuse(_answer(arguments, _status(arguments)))
    assert raised.value.record == "RTE-3"


@pytest.mark.parametrize("words", ["Thought limit reached (100)", "Maximum number of thoughts exceeded",
                                   "Too many thoughts in this session"])
def test_a_refusal_in_the_words_of_a_bound_is_the_stores_bound(words: str) -> None:
    """Whichever check meets it: one expecting the call accepted, one expecting a guard's refusal."""
    arguments = Envelope("t", 1, 1, True).arguments()
    refusal = _answer(arguments, {"error": words, "status": "failed"}, refused=True)
    for reading in (accepted, rejected):
        with pytest.raises(Contradiction) as raised:
            reading(refusal)
        assert raised.value.record == "RTE-5" and words in str(raised.value)


def test_a_guards_refusal_or_another_refusal_is_no_bound() -> None:
    arguments = Envelope("t", 1, 1, True).arguments()
    limit = "Invalid thought: history limit of 1000 reached"
    guard = _answer(arguments, {"error": limit, "status": "failed"}, refused=True)
    assert rejected(guard).startswith("Invalid thought")
    with pytest.raises(Contradiction) as raised:
        accepted(guard)
    assert raised.value.record == "RTE-3"
    other = _answer(arguments, {"error": "Unknown tool: x", "status": "failed"}, refused=True)
    with pytest.raises(AssertionError) as failed:
        accepted(other)
    assert not isinstance(failed.value, Contradiction)


BRANCH = {**Envelope("a branch", 2, 3, True).arguments(), "branchFromThought": 1, "branchId": "b"}


@pytest.mark.parametrize(("label", "record"), [("🔀 Fork", "CMP-5"), ("💭 Thought", "RTE-9")])
def test_a_label_none_of_the_originals_is_the_headers_wording(label: str, record: str) -> None:
    """RTE-9 chooses among the three labels; a label that is none of them is CMP-5's header."""
    box = expected_box(BRANCH).replace("🌿 Branch", label)
    exchange = _answer(BRANCH, _status(BRANCH), stderr=box)
    with pytest.raises(Contradiction) as raised:
        # The label is read before anything asks the server; a session that is never started.
        expect_render(exchange, BRANCH, cast(ServerSession, None))
    assert raised.value.record == record


RENAMED: dict[str, JSON] = {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": True, "branches": [],
                            "historyLength": 1}


@pytest.mark.parametrize(("clock", "record"), [(" @ 12:00:00", "CMP-5"), ("", "OBJ-4")])
def test_a_render_check_reads_the_box_of_a_call_answered_out_of_shape(clock: str, record: str) -> None:
    """A status key renamed and the header stamped with the time: the render check names the box's record;
    with the box drawn right, the renamed key (OBJ-4) stands."""
    from conformance.suite.test_render import _rendered_if_accepted

    arguments = Envelope("a thought", 1, 1, True).arguments()
    box = expected_box(arguments).replace("Thought 1/1", "Thought 1/1" + clock)
    exchange = _answer(arguments, RENAMED, stderr=box)
    with pytest.raises(Contradiction) as raised:
        _rendered_if_accepted(exchange, arguments, cast(ServerSession, None))
    assert raised.value.record == record


def test_a_capability_added_speaks_not_of_the_records_counting_a_texts_keys() -> None:
    """initialize's `listChanged` added is no key of the status object (nor of the tool spec)."""
    added = explain({"result": {"capabilities": {"tools": {}}}},
                    {"result": {"capabilities": {"tools": {"listChanged": True}}}})
    assert [_speaks_of(added[0], _about([rid])) for rid in ("OBJ-4", "CMP-2")] == [False, False]


@given(st.text(min_size=1, max_size=12),
       st.sampled_from([("parent/", ""), ("", ""), ("", "/x"), (" ", " "), ("", " ")]))
def test_a_label_listed_in_another_spelling_is_found_respelled(label: str, around: tuple[str, str]) -> None:
    """A nested fork's "parent/label" is the label respelled (OBJ-4/a1); the label itself is not."""
    from conformance.suite.store_model import respelled

    before, after = around
    listed = f"{before}{label}{after}"
    assert respelled(label, (listed,)) == ([] if listed == label else [listed])
    assert respelled("label·1", ("other·2", "label·1")) == []


def test_a_prototype_label_accepted_under_another_spelling_is_the_labels_change() -> None:
    """The original throws on a `__proto__` bucket; a fork filing it as "parent/__proto__" never looks it up:
    the catch (RTE-8) did not change, the label's spelling (OBJ-4/a1) did."""
    from conformance.suite.test_errors import _expect_label_as_sent

    arguments = {**Envelope("t", 1, 1, True).arguments(), "branchId": "__proto__", "branchFromThought": 1}
    status: dict[str, JSON] = {**_status(arguments), "branches": ["parent", "parent/__proto__"]}
    with pytest.raises(Contradiction) as raised:
        _expect_label_as_sent(_answer(arguments, status), arguments)
    assert raised.value.record == "OBJ-4/a1"
    _expect_label_as_sent(_answer(arguments, {**status, "branches": ["parent"]}), arguments)


def test_a_reworded_first_line_sharing_the_word_tool_is_not_the_added_tools_difference() -> None:
    """"A tool for …" shares "tool" with RTE-1's "the one tool spec": inside a listed tool, a difference
    speaks of a record by its field, so RTE-1's pair is the tool added and the description's records keep
    theirs."""
    from conformance.gate.evidence import _Answer, _compared

    reworded = _forked("A tool for step-by-step thinking.\n" + DESCRIPTION.split("\n", 1)[1])
    theirs = [_Answer("tools/list", json.dumps(_tools(SPEC)), "")]
    ours = [_Answer("tools/list", json.dumps(_tools(reworded, ADDED)), "")]
    firsts = {}
    for rid in ("RTE-1", "OBJ-5", "CMP-2"):
        found = _compared(theirs, ours, _about([rid]))
        assert found is not None
        firsts[rid] = found[1][0]
    assert "`get_thought` added" in firsts["RTE-1"]
    assert firsts["OBJ-5"].startswith("result.tools[0].description") and firsts["CMP-2"] == firsts["OBJ-5"]
