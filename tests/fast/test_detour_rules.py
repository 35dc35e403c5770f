"""The detours past a refusal (gate/detour.py) over each kind of rule a fork refuses by: a length, the kind of
characters a text holds, a range, a type, a relation between numbered fields, two optional fields both set.
For any sequence of calls breaking the rule, one of the detours offered for the refused field moves every call
inside the rule, and keeps what the calls share: equal texts stay equal (as plain words, different ones
different), and the order between the numbered fields of each call and across calls."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.gate.detour import calls_of, detours, letters_alike, moved, plain_words

Arguments = dict[str, JSON]
Rule = Callable[[Arguments], bool]
"""True where the rule accepts the call."""


def _frames(calls: list[Arguments]) -> list[str]:
    hello = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}})
    return [hello, *(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                 "params": {"name": "sequentialthinking", "arguments": a}})
                     for i, a in enumerate(calls, start=1))]


@st.composite
def _calls(draw: st.DrawFn) -> list[Arguments]:
    out: list[Arguments] = []
    for _ in range(draw(st.integers(1, 5))):
        number = draw(st.integers(1, 10_000))
        call: Arguments = {"thought": draw(st.text(max_size=60)), "thoughtNumber": number,
                           "totalThoughts": draw(st.integers(1, 10_000) | st.floats(0.5, 1e4)),
                           "nextThoughtNeeded": draw(st.booleans())}
        if draw(st.booleans()):
            call["branchFromThought"] = draw(st.integers(1, 10_000))
            call["branchId"] = draw(st.text(max_size=80))
        if draw(st.booleans()):
            call["isRevision"] = True
            call["revisesThought"] = draw(st.integers(1, 10_000))
        out.append(call)
    return out


def _num(call: Arguments, field: str) -> float | None:
    value = call.get(field)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _plain_text(text: str) -> bool:
    """Not blank, printable, ASCII: what a rule on a text's kind of characters may accept."""
    return text.strip() != "" and text.isprintable() and text.isascii()


def _rules(data: st.DataObject) -> tuple[str, str, Rule]:
    """A kind of rule, the field its refusal names and the rule (a repeat: over the calls before it)."""
    draw = data.draw
    kind = draw(st.sampled_from(["length", "characters", "range", "type", "relation", "order", "both set",
                                 "repeat"]))
    if kind == "length":
        field, most = draw(st.sampled_from(["thought", "branchId"])), draw(st.integers(8, 64))
        return kind, field, lambda c: not isinstance(c.get(field), str) or len(str(c.get(field))) <= most
    if kind == "characters":
        field = draw(st.sampled_from(["thought", "branchId"]))
        return kind, field, lambda c: not isinstance(c.get(field), str) or _plain_text(str(c.get(field)))
    if kind == "range":
        field = draw(st.sampled_from(["thoughtNumber", "totalThoughts", "branchFromThought"]))
        return kind, field, lambda c: (_num(c, field) or 0) <= 20
    if kind == "type":
        field = draw(st.sampled_from(["totalThoughts", "thoughtNumber"]))
        return kind, field, lambda c: _num(c, field) is None or float(_num(c, field) or 0).is_integer()
    if kind == "relation":
        ratio = draw(st.integers(1, 10))
        return kind, "thoughtNumber", lambda c: (_num(c, "thoughtNumber") or 0) <= ratio * (
            _num(c, "totalThoughts") or 0)
    if kind == "order":
        field = draw(st.sampled_from(["revisesThought", "branchFromThought"]))
        return kind, field, lambda c: _num(c, field) is None or (_num(c, field) or 0) < (
            _num(c, "thoughtNumber") or 0) or (_num(c, "thoughtNumber") or 0) <= 1
    if kind == "repeat":
        return kind, "thought", lambda c: c.get("previous") != c.get("thought")
    return kind, "isRevision", lambda c: not ("isRevision" in c and "branchFromThought" in c)


def _with_previous(calls: list[Arguments]) -> list[Arguments]:
    """Each call beside the thought of the call before it, for a rule over the calls before."""
    return [{**c, "previous": calls[i - 1].get("thought") if i else None} for i, c in enumerate(calls)]


@settings(max_examples=300, deadline=None)
@given(data=st.data(), calls=_calls())
def test_one_detour_moves_every_call_inside_each_kind_of_rule(data: st.DataObject,
                                                              calls: list[Arguments]) -> None:
    kind, field, accepts = _rules(data)
    if kind == "repeat" and len(calls) > 1 and data.draw(st.booleans()):
        calls[1]["thought"] = calls[0]["thought"]
    if kind == "range" and len({v for c in calls for v in c.values()
                                if isinstance(v, int | float) and not isinstance(v, bool)}) > 20:
        return  # more distinct numbers than the range holds: no order-keeping detour fits
    refused = next((c for c in _with_previous(calls) if not accepts(c)), None)
    if refused is None:
        return
    frames = _frames(calls)
    passing = [d for d in detours(field, refused, calls)
               if all(map(accepts, _with_previous(calls_of(moved(frames, d)))))]
    assert passing, (kind, field, [d.name for d in detours(field, refused, calls)])
    after = calls_of(moved(frames, passing[0]))
    assert len(after) == len(calls)
    for text in ("thought", "branchId") if passing[0].name in ("letters", "plain") else ():
        before_values = [c.get(text) for c in calls]
        after_values = [c.get(text) for c in after]
        for (a, b), (x, y) in zip(pairwise(before_values), pairwise(after_values), strict=True):
            if a is not None and b is not None and x is not None and y is not None:
                assert (a == b) <= (x == y), (a, b, x, y)  # equal texts stay equal
                assert passing[0].name != "plain" or (a == b) == (x == y), (a, b, x, y)
    if passing[0].name == "re-ranked":
        numbers = [(float(v), float(w)) for c, m in zip(calls, after, strict=True)
                   for k, v in c.items() if isinstance(v, int | float) and not isinstance(v, bool)
                   for w in [m[k]] if isinstance(w, int | float)]
        for (a, x), (b, y) in pairwise(numbers):
            assert (a < b) == (x < y) and (a == b) == (x == y), (a, b, x, y)


@given(st.text())
def test_letters_alike_keep_the_length_and_meet_a_rule_on_the_kind_of_characters(text: str) -> None:
    alike = letters_alike(text)
    assert len(alike.encode("utf-16-le", "surrogatepass")) == len(text.encode("utf-16-le", "surrogatepass"))
    assert alike == "" or _plain_text(alike)


@given(st.text(), st.text())
def test_plain_words_keep_texts_apart(one: str, other: str) -> None:
    assert (plain_words(one) == plain_words(other)) == (one == other)
    assert plain_words(one).isalpha() and plain_words(one).isascii() and len(plain_words(one)) == 8
