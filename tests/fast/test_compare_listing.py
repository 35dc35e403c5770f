"""A listed tool's change said by name (issue 31): texts as a line and word diff with counts, schemas key by
key (`required`, types, properties, annotations), tools added or dropped with their schemas; and headlines
cut at clause boundaries, never mid-word."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.listing import describe_text, object_changes
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
    shown = re.sub(r"; and \d+ more", "", cut).replace(f" ({n} difference{'s' if n != 1 else ''})", "")
    for word in shown.replace(";", " ").replace(",", " ").split():
        word = word.removesuffix("…")
        assert not word or word in words, (word, cut)
    more = re.search(r"and (\d+) more", cut)
    if more and limit >= 60:
        kept = len(re.sub(r"; and \d+ more.*$", "", cut).split("; "))
        assert kept + int(more.group(1)) <= len(clauses)


def test_the_count_is_kept_and_the_dropped_clauses_counted() -> None:
    text = "; ".join(f"clause number {i} says something long enough" for i in range(6)) + " (7 differences)"
    cut = cut_headline(text, 120)
    assert cut.endswith("; and 4 more (7 differences)")
    assert cut.startswith("clause number 0 says something long enough; clause number 1")
