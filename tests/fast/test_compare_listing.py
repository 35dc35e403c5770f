"""What a reviewer reads (issue 31), without servers: a listed tool's change said by name (texts as a line and
word diff with counts, schemas key by key, tools added or dropped with their schemas); headlines cut at
clause boundaries, never mid-word; cross-field rules as relations, a head keeping no state as one cause,
explored coercions grouped with coercion (on real servers: tests/e2e/test_compare_changes.py)."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.attribution import default_rules
from conformance.compare.coercion import EXPLORED
from conformance.compare.engine import root_causes
from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.listing import _camel, describe_text, object_changes
from conformance.compare.observe import Found
from conformance.compare.probes import LONG_PROBE, NO_STATE, PROBES, ProbeFound, _no_state
from conformance.compare.relations import REFUSED_WHEN, Relation, explained_by, relation_class
from conformance.core.jsontypes import JSON
from conformance.report.escape import cut_headline
from conformance.report.model import Difference

LA, LB = "base", "head"
SHOULD = ["You should:", *(f"{i}. rule number {i} of the list" for i in range(1, 12)), ""]


def _listing(field: str, a: object, b: object, detail: str = "changed") -> Difference:
    return Difference(id=f"tools_list.{field}..{detail}", aspect="tools_list", summary="", field=field,
                      detail=detail, a=json.dumps(a), b=json.dumps(b), cause="tool-spec",
                      program=['{"jsonrpc":"2.0","id":2,"method":"tools/list"}'])


def _headline(*ds: Difference) -> str:
    return explain(list(ds), LA, LB, default_known_changes()).headline


def test_a_one_word_edit_names_its_line_item_and_words() -> None:
    a = "\n".join(["Intro", *SHOULD])
    b = a.replace("rule number 11", "rule nummer 11")
    said = _headline(_listing("description", a, b))
    assert "item 11 of “You should:”" in said
    assert "“number” → “nummer”" in said
    assert "(whole)" not in said


def test_a_removed_block_is_counted_and_folded() -> None:
    lines = [f"- parameter {i}: what it means" for i in range(29)]
    a = "\n".join(["Intro", "Parameters explained:", *lines, "End"])
    b = "Intro\nEnd"
    said = _headline(_listing("description", a, b))
    assert "30 lines removed on head (lines 2–31)" in said
    assert "and 27 more" in said
    full = describe_text(a, b, LB, most=None)
    assert all(f"parameter {i}:" in full for i in range(29))


@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta"]), min_size=1, max_size=8),
       st.integers(0, 7), st.sampled_from(["alpha", "omega", ""]))
def test_every_changed_word_is_named(words: list[str], at: int, new: str) -> None:
    a = " ".join(words)
    changed = list(words)
    changed[min(at, len(words) - 1)] = new
    b = " ".join(w for w in changed if w)
    said = describe_text(a, b, LB)
    if a.split() == b.split():
        assert said == "whitespace only"
    else:
        assert "line 1" in said and (new in said or "drops" in said)


def test_required_dropped_and_restored_are_said_in_words() -> None:
    a = {"type": "object", "properties": {"n": {"type": "boolean"}}, "required": ["thought", "n"]}
    b = {**a, "required": ["thought"]}
    assert "`required` on head drops `n`" in _headline(_listing("inputSchema", a, b))
    assert "`required` on head adds `n`" in _headline(_listing("inputSchema", b, a))


def test_types_properties_enums_and_annotations_are_named() -> None:
    a = {"properties": {"x": {"type": "boolean"}, "y": {"type": "string", "enum": ["a", "b"]}}}
    b = {"properties": {"x": {"type": ["boolean", "string"]}, "y": {"type": "string", "enum": ["a"]},
                        "z": {"type": "integer", "minimum": 1}}}
    said = object_changes(a, b, LB)
    assert "`x`'s type changes from boolean to boolean or string on head" in said
    assert "`properties.y.enum` on head drops `b`" in said
    assert "head adds the property `z` (integer ≥ 1)" in said
    hints = object_changes({"readOnlyHint": True}, {"readOnlyHint": False}, LB)
    assert hints == ["`readOnlyHint` changes from true to false on head"]


def test_an_added_tool_is_named_with_its_schema() -> None:
    tool = {"name": "reset_thoughts", "description": "Clears",
            "inputSchema": {"type": "object", "properties": {"keep": {"type": "boolean"}}}}
    said = _headline(_listing("tools", [], [tool], detail="names"))
    assert "head's tools/list adds the tool `reset_thoughts` (`keep` boolean, optional)" in said
    dropped = _headline(_listing("tools", [tool], [], detail="names"))
    assert "drops the tool `reset_thoughts`" in dropped


_WORD = st.text(alphabet="abcdefghij`“”()", min_size=1, max_size=12)
_CLAUSE = st.lists(_WORD, min_size=1, max_size=30).map(" ".join)


@given(st.lists(_CLAUSE, min_size=1, max_size=8), st.integers(1, 40), st.integers(20, 400))
def test_headlines_are_cut_at_clause_boundaries_never_mid_word(clauses: list[str], n: int, limit: int) \
        -> None:
    text = "; ".join(clauses) + f" ({n} difference{'s' if n != 1 else ''})"
    cut = cut_headline(text, limit)
    assert len(cut) <= max(limit, 1)
    if len(text) <= limit:
        assert cut == text
        return
    words = set(text.replace(";", " ").replace(",", " ").split())
    shown = re.sub(r"; (?:more on .*|…)$", "", cut.replace(f" ({n} difference{'s' if n != 1 else ''})", ""))
    for word in shown.replace(";", " ").replace(",", " ").split():
        if word != "(…)":  # what a cut left open is closed after its "…"
            word = re.sub(r"…[`)\]}”\"]*$", "", word)
        assert not word or word in words or word == "(…)", (word, cut)  # an aside folded whole
    assert not re.search(r"and \d+ more \(", cut), cut


def test_the_count_is_kept_and_the_dropped_clauses_said_by_what_they_name() -> None:
    text = "; ".join(f"clause number {i} says something of `field{i}`" for i in range(6)) + " (7 differences)"
    cut = cut_headline(text, 150)
    assert cut.endswith("; more on `field2`, `field3` and 2 other names (7 differences)"), cut
    assert cut.startswith("clause number 0 says something of `field0`; clause number 1"), cut


# -- relations, resets and coercions said as such ------------------------------------------------------

def _refusal(field: str, value: object, other: str, other_value: int, refused_by: str, cls: str) \
        -> Difference:
    args = {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False,
            other: other_value, field: value}
    frame = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "sequentialthinking", "arguments": args}})
    refusal = 'isError {"error": "Invalid revisesThought: must be less than thoughtNumber"}'
    accepted = json.dumps({"thoughtNumber": other_value})
    return Difference(id=f"is_error.{field}.{cls}.refused-by-{refused_by}", aspect="is_error", summary="",
                      program=[frame], field=field, value_class=cls, detail=f"refused by {refused_by}",
                      a=refusal if refused_by == "a" else accepted,
                      b=accepted if refused_by == "a" else refusal, cause="validation")


@given(st.sampled_from(sorted(REFUSED_WHEN.values())), st.integers(1, 9), st.integers(1, 9),
       st.sampled_from(["a", "b"]))
def test_a_relation_marks_exactly_the_refusals_that_break_it(op: str, f: int, g: int, side: str) -> None:
    relation = Relation("revisesThought", "thoughtNumber", op, side)
    d = _refusal("revisesThought", f, "thoughtNumber", g, side, "integer")
    args = json.loads(d.program[0])["params"]["arguments"]
    truth = {"≥": f >= g, ">": f > g, "<": f < g, "≤": f <= g, "=": f == g, "≠": f != g}[op]
    assert explained_by(d, relation, args) is truth
    other_side = "b" if side == "a" else "a"
    assert not explained_by(d, Relation("revisesThought", "thoughtNumber", op, other_side), args)


def test_a_cross_field_rule_is_said_as_a_relation_between_fields() -> None:
    relation = Relation("revisesThought", "thoughtNumber", "≥", "b")
    ds = [_refusal("revisesThought", v, "thoughtNumber", 1, "b", cls).model_copy(
        update={"value_class": relation_class(relation)})
        for v, cls in ((1, "integer"), ("1", "numeric string"))]
    said = _headline(*ds)
    assert said.startswith("head refuses `revisesThought` ≥ `thoughtNumber`")
    assert "base accepts it" in said
    assert "integer" not in said


def _probe(field: str, a: str, b: str, calls: int = 2) -> Difference:
    frame = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "sequentialthinking", "arguments": {}}})
    return Difference(id=f"store.{field}.long-probe", aspect="store", summary="", field=field,
                      detail=LONG_PROBE, a=a, b=b, program=[frame] * calls,
                      cause=default_rules().attribute(Found("store", field, "", LONG_PROBE, a, b, True))[1])


def test_a_head_that_keeps_no_state_is_one_cause_not_its_symptoms() -> None:
    grows = "keeps it growing by one a call (18 after call 18)"
    found = [ProbeFound(Found("store", p.field, "", LONG_PROBE, grows, "caps it at 1 (unchanged over calls 2 "
                              "to 18)", True), ()) for p in PROBES]
    said = [f.found.b for f in _no_state(found)]
    assert all(s.startswith(NO_STATE) for s in said)
    probes = [_probe(p.field, grows, s) for p, s in zip(PROBES, said, strict=True)]
    assert {d.cause for d in probes} == {"no-state"}
    symptom = Difference(id="store.thoughtHistoryLength", aspect="store", summary="",
                         field="thoughtHistoryLength", a="thoughtHistoryLength +2",
                         b="thoughtHistoryLength +1", cause="store")
    causes = root_causes([*probes, symptom], default_rules(), LA, LB)
    assert [c.id for c in causes] == ["no-state"]
    assert causes[0].summary.startswith("head keeps no state between calls")
    assert "1 store difference on short programs follows from it (3 differences)" in causes[0].summary


def test_a_cap_at_one_of_one_quantity_alone_stays_a_cap() -> None:
    found = [ProbeFound(Found("store", PROBES[0].field, "", LONG_PROBE, "keeps it growing by one a call (9 "
                              "after call 9)", "caps it at 1 (unchanged over calls 2 to 9)", True), ())]
    assert _no_state(found) == found


@given(st.sampled_from([cls for values in EXPLORED.values() for _, cls in values]),
       st.sampled_from(["thoughtNumber", "totalThoughts", "nextThoughtNeeded", "branchFromThought"]),
       st.sampled_from(["a", "b"]))
def test_explored_coercions_fall_under_coercion(cls: str, field: str, side: str) -> None:
    found = Found("is_error", field, cls, f"refused by {side}", "isError x", "{}", True)
    records, cause = default_rules().attribute(found)
    assert cause == "coercion" and "RTE-3" in records


def test_a_required_change_is_said_before_the_other_schema_changes() -> None:
    """2026.8.31 restores `required` beside three type changes: a headline cut after three clauses must
    still say it (the atlas once showed only the type changes, and a reviewer concluded the reverse)."""
    flags = ("isRevision", "needsMoreThoughts", "nextThoughtNeeded")
    a: JSON = {"properties": {k: {"type": "boolean"} for k in flags}, "required": ["thought"]}
    b: JSON = {"properties": {k: {"type": ["boolean", "string"]} for k in flags},
         "required": ["thought", "nextThoughtNeeded"]}
    said = object_changes(a, b, "head")
    assert said[0] == "`required` on head adds `nextThoughtNeeded`", said
    assert len(said) == 4


def test_a_description_says_its_renamed_parameters_before_its_whitespace() -> None:
    """Issue 47: 2025.11.25's description renamed eight parameters to camelCase and re-indented seven lines;
    the renames (and the snake_case mentions left) come first, the whitespace last and counted."""
    names = ["next_thought_needed", "thought_number", "total_thoughts", "is_revision"]
    a = "\n".join(["Intro uses total_thoughts here", "Parameters explained:",
                   *(f"- {n}: what it means" for n in names), "  - indented: a", "  - indented: b"])
    b = "\n".join(["Intro uses total_thoughts here", "Parameters explained:",
                   *(f"- {_camel(n)}: what it means" for n in names), "- indented: a", "- indented: b"])
    said = describe_text(a, b, LB)
    assert said.startswith("4 names moved from snake_case to camelCase on head (`next_thought_needed` → "
                           "`nextThoughtNeeded`")
    assert "1 snake_case mention remains (`total_thoughts` on line 1)" in said
    assert said.endswith("2 lines changed in whitespace only on head")
    assert "whitespace only" not in describe_text(a, a.replace("is_revision", "isRevision"), LB)
