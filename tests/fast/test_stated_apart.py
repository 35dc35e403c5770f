"""Two differences one pair shows, each said under the record that states it (gate/stated_apart.py, issue 42:
held-out-multi-17's client-polish, whose tools/list was paged and its description cut to one line; RTE-1's
cause was headed by the description and held CMP-2 and the description's fifteen records, so the description's
change was never a cause of its own)."""

from __future__ import annotations

from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

_FIELD: Final = st.sampled_from(
    ["nextCursor", "description", "summary", "title", "annotations", "version"])
_AT: Final = "on the example's tools/list (request 2)"
STATEMENTS: Final = {
    "RTE-1": "tools/list returns the one tool spec verbatim, unfiltered, and the same every time.",
    "CMP-2": ("The server's single tool spec is named \"sequentialthinking\" and carries a 54-line "
              "natural-language description and a JSON Schema for its arguments."),
    "CMP-2/a2": ("The description's parameter guidance names eight of the nine parameters in snake_case "
                 "while the inputSchema declares, and validation requires, camelCase."),
}


def _difference(field: str, added: bool = True) -> str:
    if added:
        return f"result.tools[0].{field}: absent on the original, \"end of {field}\" here"
    return f"result.tools[0].{field}: “{field} as it was” on the original, “{field} cut” here"


def _pair(differences: list[str], cause: str = "") -> Evidence:
    return Evidence(reproduced=True, at=_AT, differences=differences, original_spec="npm:0.6.2", cause=cause)


def _record(rid: str, messages: list[tuple[str, bool]], evidence: Evidence | None,
            explained_by: str | None = None) -> RecordVerdict:
    tests = [TestRef(nodeid=f"t::{rid}::{i}", status="failed", examples=1, message=message,
                     contradicted=[rid] if named else []) for i, (message, named) in enumerate(messages)]
    return RecordVerdict(id=rid, kind="cmp", aliases=[], anchors=[], statement=STATEMENTS.get(rid, "s"),
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", explained_by=explained_by, evidence=evidence,
                         reason=messages[0][0], tests=tests)


def _cause(rid: str, explains: list[str], evidence: Evidence) -> RootCause:
    return RootCause(id=rid, records=[rid], explains=explains,
                     summary=f"{rid} departs — {evidence.headline()}"[:400],
                     evidence=evidence.model_copy(update={"cause": rid}))


@given(fields=st.lists(_FIELD, min_size=2, max_size=2, unique=True), lead_first=st.booleans(),
       explained=st.integers(min_value=1, max_value=4))
def test_a_pair_of_two_fields_is_two_causes_each_under_its_stating_record(
        fields: list[str], lead_first: bool, explained: int) -> None:
    """RTE-1's own check names RTE-1 for one field; the records it explains fail on the other field alone:
    whichever field the pair shows first, RTE-1's cause is headed by its own field and explains none of them,
    and the other field is a cause led by the record stating it (CMP-2, named by its check), explaining the
    rest."""
    own, other = fields
    differences = [_difference(own), _difference(other, added=False)]
    if not lead_first:
        differences.reverse()
    pair = _pair(differences)
    others = ["CMP-2", "OBJ-5", "OBJ-11", "BAP-1"][:explained]
    said = f"RTE-1 contradicted: tools/list answers a `{own}` the original never sends"
    records = [_record("RTE-1", [(said, True)], pair.model_copy(update={"cause": "RTE-1"}))]
    records += [_record(rid, [(f"the served tool spec's `{other}` differs from the original's",
                               rid == "CMP-2")], _pair(differences, cause="RTE-1"), explained_by="RTE-1")
                for rid in others]
    causes, out = checked_explanations([_cause("RTE-1", others, pair)], records)
    by_id = {c.id: c for c in causes}
    assert set(by_id) == {"RTE-1", "CMP-2"}, [c.summary for c in causes]
    assert by_id["RTE-1"].summary.startswith(f"RTE-1 departs — tools[0].{own}: "), by_id["RTE-1"].summary
    assert by_id["RTE-1"].explains == []
    assert by_id["CMP-2"].summary.startswith(f"CMP-2 departs — tools[0].{other}: "), by_id["CMP-2"].summary
    assert sorted(by_id["CMP-2"].explains) == sorted(others[1:])
    assert {rv.id: rv.explained_by for rv in out} == {"RTE-1": None, "CMP-2": None,
                                                      **{rid: "CMP-2" for rid in others[1:]}}


@given(fields=st.lists(_FIELD, min_size=2, max_size=2, unique=True))
def test_a_lead_whose_own_checks_say_both_fields_stays_one_cause(fields: list[str]) -> None:
    """Where the leading record's own checks say both fields, nothing tells which record states which: the
    cause and its headline are kept as they were."""
    one, two = fields
    pair = _pair([_difference(one), _difference(two)])
    records = [_record("RTE-1", [(f"RTE-1 contradicted: the listing's `{one}` and `{two}` differ", True)],
                       pair.model_copy(update={"cause": "RTE-1"})),
               _record("CMP-2", [(f"the served tool spec's `{two}` differs", False)],
                       _pair(pair.differences, cause="RTE-1"), explained_by="RTE-1")]
    cause = _cause("RTE-1", ["CMP-2"], pair)
    causes, out = checked_explanations([cause], records)
    assert [(c.id, c.summary, c.explains) for c in causes] == [("RTE-1", cause.summary, ["CMP-2"])]
    assert {rv.id: rv.explained_by for rv in out}["CMP-2"] == "RTE-1"


def test_a_field_named_in_common_words_goes_by_the_statement_it_breaks() -> None:
    """held-out-multi-15's readme-names: the tool renamed (CMP-2's own check names CMP-2) and the
    description's parameters in camelCase, in one listing; CMP-2/a2's check, about the description's
    `"- name:" lines`, says "name" too. Its statement is broken by the description alone, so it leads the
    description's cause, and CMP-2's is headed by the name."""
    name = "result.tools[0].name: “sequentialthinking” on the original, “sequential_thinking” here"
    description = ("result.tools[0].description: 54 lines on each side; changes line 34 "
                   "“- next_thought_needed: True if you need more thinking” to "
                   "“- nextThoughtNeeded: True if you need more thinking”")
    pair = _pair([description, name])
    records = [
        _record("CMP-2", [("the served tool spec differs from the original's: description: …", False),
                          ("tools/list offers sequential_thinking, where the original offers "
                           "sequentialthinking", True)], pair.model_copy(update={"cause": "CMP-2"})),
        _record("CMP-2/a2", [('the description documents 9 parameter(s) as "- name:" lines, 0 of them in '
                              "snake_case, where the original documents eight", False)],
                _pair(pair.differences, cause="CMP-2"), explained_by="CMP-2"),
        _record("OBJ-11", [("the description lines 5-23 differ from the original's", False)],
                _pair(pair.differences, cause="CMP-2"), explained_by="CMP-2"),
    ]
    causes, out = checked_explanations([_cause("CMP-2", ["CMP-2/a2", "OBJ-11"], pair)], records)
    assert {rv.id: rv.explained_by for rv in out} == {"CMP-2": None, "CMP-2/a2": None, "OBJ-11": "CMP-2/a2"}
    by_id = {c.id: c for c in causes}
    assert by_id["CMP-2"].summary.startswith("CMP-2 departs — tools[0].name: "), by_id["CMP-2"].summary
    assert by_id["CMP-2/a2"].summary.startswith("CMP-2/a2 departs — tools[0].description: ")
    assert by_id["CMP-2/a2"].explains == ["OBJ-11"]
    assert by_id["CMP-2/a2"].evidence is not None and by_id["CMP-2/a2"].evidence.differences == [description]
    assert by_id["CMP-2"].evidence is not None and by_id["CMP-2"].evidence.differences == [name]


@given(fields=st.lists(_FIELD, min_size=2, max_size=2, unique=True))
def test_keys_dropped_together_stay_one_cause(fields: list[str]) -> None:
    """Two keys the answer lost together (both moved under one new key, held-out-multi-14's rich-results) are
    one move, whichever of them a departure's check says: no cause is split off."""
    one, two = fields
    pair = _pair([f"result.content[0].text → {one}: 1 on the original, absent here",
                  f"result.content[0].text → {two}: 1 on the original, absent here"])
    records = [_record("OBJ-4", [(f"OBJ-4 contradicted: the answer has no `{one}` key", True)],
                       pair.model_copy(update={"cause": "OBJ-4"})),
               _record("CMP-2", [(f"no key '{two}' where the check read one", False)],
                       _pair(pair.differences, cause="OBJ-4"), explained_by="OBJ-4")]
    causes, out = checked_explanations([_cause("OBJ-4", ["CMP-2"], pair)], records)
    assert [c.id for c in causes] == ["OBJ-4"], [c.summary for c in causes]
    assert {rv.id: rv.explained_by for rv in out}["CMP-2"] == "OBJ-4"
