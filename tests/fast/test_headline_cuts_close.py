"""What a cut headline and a value cut for a line still say truly (issue 42): no bracket or quote left open,
the case a sentence starts in kept, two values differing after the cut never shown alike, and an example
shown beside a class of value sent of that class."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.wording import short_pair
from conformance.report.escape import cut_headline
from conformance.report.model import Difference

_PAIRS = {"(": ")", "[": "]", "{": "}", "“": "”", '"': '"', "`": "`"}


def _open_at_end(text: str) -> list[str]:
    """What `text` leaves open: brackets outside quotes, and quotes (inside one, nothing else counts)."""
    stack: list[str] = []
    for ch in text:
        if stack and stack[-1] in ('"', "`", "“"):
            if ch == _PAIRS[stack[-1]]:
                stack.pop()
        elif ch in _PAIRS:
            stack.append(ch)
        elif ch in _PAIRS.values() and stack and _PAIRS[stack[-1]] == ch:
            stack.pop()
    return stack


WORD = st.text(alphabet="abcdefgh", min_size=1, max_size=9)


@st.composite
def balanced(draw: st.DrawFn, depth: int = 0) -> str:
    """A clause of words with balanced brackets and quotes, nested."""
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["w", "w", "w", "(", "[", "{", "“", '"', "`"] if depth < 3 else ["w"]))
        if kind == "w":
            parts.append(draw(WORD))
        elif kind in ('"', "`"):
            parts.append(kind + " ".join(draw(st.lists(WORD, min_size=1, max_size=8))) + _PAIRS[kind])
        else:
            parts.append(kind + draw(balanced(depth + 1)) + _PAIRS[kind])
    return " ".join(parts)


@given(st.lists(balanced(), min_size=1, max_size=6), st.integers(1, 40), st.integers(30, 300))
def test_a_cut_of_a_balanced_headline_leaves_nothing_open(clauses: list[str], n: int, limit: int) -> None:
    """The validation headline ended inside "(re-tested on fresh calls: …": whatever the cut keeps, drops or
    folds, what it leaves open it closes, within its limit."""
    text = "; ".join(clauses) + f" ({n} difference{'s' if n != 1 else ''})"
    assert not _open_at_end(text)
    cut = cut_headline(text, limit)
    assert len(cut) <= limit, cut
    assert not _open_at_end(cut), (cut, text)


LEAD = st.sampled_from([
    "SPEC-1 (2024-11-05..2025-11-25 basic/lifecycle § Version Negotiation (MUST)) with the auto client, "
    "settled on 2025-06-18",
    "Refusals of `name` are worded otherwise on 0.6.2 and 2026.8.31",
])


@given(LEAD, st.lists(WORD, min_size=4, max_size=30), st.integers(40, 160))
def test_a_cut_dropping_a_lead_starts_its_sentence_as_the_text_did(lead: str, words: list[str],
                                                                   limit: int) -> None:
    """A cut that drops a record's prefix or compare's re-wording lead left "the refusal of …" starting a
    headline that started with a capital."""
    text = f"{lead}: " + " ".join(words) + " (1 difference)"
    cut = cut_headline(text, limit)
    first = next((ch for ch in cut if ch.isalpha()), "")
    assert not first or first.isupper(), cut


_TEXT = "ab ,:"


@given(st.text(alphabet=_TEXT, min_size=150, max_size=400), st.text(alphabet=_TEXT, min_size=1, max_size=20),
       st.text(alphabet=_TEXT, min_size=1, max_size=20), st.integers(10, 120))
def test_two_values_differing_after_the_cut_are_never_shown_alike(common: str, tail_a: str, tail_b: str,
                                                                   width: int) -> None:
    """`short` cut each of two values over 200 characters alone, so two that first differ after the cut
    read the same."""
    a, b = common + "x" + tail_a, common + "y" + tail_b
    sa, sb = short_pair(a, b, width)
    assert sa != sb, (sa, sb)
    assert len(sa) <= max(width, 200) and len(sb) <= max(width, 200)


def _status(did: str, program_args: dict[str, object], a: dict[str, object], b: dict[str, object],
            suspect: str = "", value_class: str = "") -> Difference:
    frame = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "sequentialthinking", "arguments": program_args}})
    field = "+".join(k for k in a if a[k] != b.get(k))
    return Difference(id=did, aspect="answer", detail="status", field=field, suspect=suspect,
                      value_class=value_class, program=[frame], a=json.dumps(a), b=json.dumps(b),
                      summary=f"the status object differs in {field}")


_NUMBERS = st.integers(-5, 5)


@given(_NUMBERS, _NUMBERS, _NUMBERS, _NUMBERS)
def test_an_example_beside_a_class_of_value_is_of_that_class(negative: int, plain: int, shift: int,
                                                             total: int) -> None:
    """plan-tracker's headline named "negative numbers for `thoughtNumber`" beside an example taken from a
    call sending 1: the call of every example a clause shows beside a class sends a value of that class."""
    negative = -abs(negative) - 1
    plain = abs(plain) + 1
    base = {"thought": "a", "totalThoughts": abs(total) + 1, "nextThoughtNeeded": False}
    bent = _status("answer.totalThoughts.status", {**base, "thoughtNumber": negative},
                   {"thoughtNumber": negative, "totalThoughts": 1},
                   {"thoughtNumber": negative, "totalThoughts": 2},
                   suspect="thoughtNumber", value_class="negative number")
    other = _status("answer.thoughtNumber-totalThoughts.status", {**base, "thoughtNumber": plain},
                    {"thoughtNumber": plain, "totalThoughts": 1},
                    {"thoughtNumber": plain + abs(shift) + 1, "totalThoughts": 2})
    headline = explain([bent, other], "A", "B", default_known_changes()).headline
    for clause in headline.split("; "):
        if "negative numbers" in clause:
            assert f"`thoughtNumber` {plain} on A" not in clause, headline
            assert "`totalThoughts` 1 on A, 2 on B" in clause, headline
    assert f"`thoughtNumber` {plain} on A, {plain + abs(shift) + 1} on B" in headline, headline


SDK_OUTPUT = ("isError MCP error -32602: Output validation error: Tool sequentialthinking has an output "
              "schema but no structured content was provided")
"""Upstream #3084's head refusing a `branchId` late: its refusal lost `isError`, its SDK's output-schema
check answered in its place."""


@given(st.sampled_from(["__proto__", "constructor", "toString"]),
       st.sampled_from([("a", "b"), ("base", "head")]))
def test_an_sdk_output_schema_error_is_said_as_the_answer_it_replaced(key: str,
                                                                      labels: tuple[str, str]) -> None:
    """#3084's headline ("… where head refuses (“… Output validation error …”): no refusal re-worded") was
    VAGUE: the words are the SDK's, refusing head's own answer for carrying neither isError nor
    structuredContent."""
    frame = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "sequentialthinking", "arguments": {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1,
                                                    "nextThoughtNeeded": False, "branchFromThought": 1,
                                                    "branchId": key}}})
    d = Difference(id="answer.branchId.error-text", aspect="answer", detail="error text", field="branchId",
                   value_class="prototype key", program=[frame], summary="worded differently",
                   a='isError { "error": "this.branches[input.branchId].push is not a function", '
                     '"status": "failed" }', b=SDK_OUTPUT)
    la, lb = labels
    headline = explain([d], la, lb, default_known_changes()).headline
    assert f"where {lb}'s own answer never reaches the caller" in headline, headline
    assert "neither `isError` nor `structuredContent`" in headline, headline
    assert "no refusal re-worded" not in headline, headline
