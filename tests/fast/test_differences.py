"""What differs between the original's answer and a target's is said at the field, or the words, that differ:
the path names a field whose values differ, both values are shown, and equal answers say nothing."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.differences import json_differences, serialized_difference, word_difference
from conformance.core.jsontypes import JSON
from conformance.gate.evidence import _about, _speaks_of, breaks

_scalars = st.one_of(st.booleans(), st.integers(-5, 5), st.text("abc xyz", max_size=8), st.none())
_json: st.SearchStrategy[JSON] = st.recursive(
    _scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                      st.dictionaries(st.sampled_from("pqrs"), inner, max_size=3)),
    max_leaves=8)
_STATUS = {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False, "branches": [],
           "thoughtHistoryLength": 1}


def _answer(status: dict[str, JSON]) -> JSON:
    return {"result": {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]}}


@given(_json)
def test_equal_answers_have_no_difference(value: JSON) -> None:
    assert json_differences(value, json.loads(json.dumps(value))) == []


@given(_json, _json)
def test_different_answers_have_at_least_one(a: JSON, b: JSON) -> None:
    found = json_differences(a, b)
    assert (found == []) == (a == b)


@given(st.sampled_from(sorted(_STATUS)), st.integers(2, 9))
def test_a_status_field_is_named_inside_the_text_block(key: str, value: int) -> None:
    changed = {**_STATUS, key: value}
    (found,) = json_differences(_answer(_STATUS), _answer(changed))
    assert found.path == f"result.content[0].text → {key}"
    assert found.original == json.dumps(_STATUS[key]) and found.target == str(value)


@given(st.sampled_from(sorted(_STATUS)))
def test_a_dropped_field_is_absent_here(key: str) -> None:
    dropped = {k: v for k, v in _STATUS.items() if k != key}
    (found,) = json_differences(_answer(_STATUS), _answer(dropped))
    assert found.path.endswith(key) and found.target == "absent"


@given(st.lists(st.sampled_from(["must", "be", "a", "number", "string", "positive"]), min_size=1, max_size=6),
       st.sampled_from(["integer", "boolean"]))
def test_a_changed_word_is_marked_on_both_sides(words: list[str], new: str) -> None:
    a = "Invalid thoughtNumber: " + " ".join(words)
    b = a + " " + new
    was, now = word_difference(a, b)
    assert "[]" in was  # nothing on the original's side where the target adds a word
    assert f"[ {new}]" in now


def test_a_reworded_schema_description_is_said_under_its_keys() -> None:
    original = ("  dict({\n    'thoughtNumber': dict({\n      'description': 'Current thought number',\n"
                "    }),\n  })")
    served = original.replace("Current thought number", "The number of the current thought")
    said = serialized_difference(original, served)
    assert said.startswith("thoughtNumber: ")
    assert "'Current thought number'" in said and "'The number of the current thought'" in said


def test_why_this_record_quotes_the_statements_words_the_difference_breaks() -> None:
    statement = ('The server advertises version "0.2.0" over the protocol while the package it ships in is '
                 "version 0.6.2; clients are told another version.")
    assert breaks(statement, ['result.serverInfo.version: "0.2.0" on the original, "1.0.0" here']).startswith(
        'The server advertises version "0.2.0"')
    assert breaks("Nothing in common here.", ["zzz: 1 on the original, 2 here"]) == "Nothing in common here."


def test_another_causes_difference_is_not_this_causes_evidence() -> None:
    """A changed serverInfo shows in every replay's initialize: it is evidence for the identity records, not
    for a box that failed to render under load; the count's field is the count's records'."""
    version = 'result.serverInfo.version: "0.2.0" on the original, "1.0.0" here'
    count = "result.content[0].text → thoughtHistoryLength: 1 on the original, 2 here"
    assert _speaks_of(version, _about(["CMP-3/a1"])) and not _speaks_of(version, _about(["CMP-5"]))
    assert _speaks_of(count, _about(["OBJ-2"])) and not _speaks_of(count, _about(["CMP-5"]))


def _bracketed(said: str) -> str:
    return said[said.index("[") + 1: said.rindex("]")]


@given(
    head=st.text(alphabet="ab ─│\n", max_size=3000),
    tail=st.text(alphabet="ab ─│\n", max_size=3000),
    was=st.text(alphabet="xy z", max_size=6),
    now=st.text(alphabet="xy z", max_size=6),
)
def test_a_word_difference_far_inside_long_texts_is_the_one_in_short_ones(
    head: str, tail: str, was: str, now: str
) -> None:
    """Only a window around the differing characters is split into words: what is bracketed on each side
    holds the changed words, however long the shared text around them."""
    if was == now:
        return
    original, target = head + "|" + was + "|" + tail, head + "|" + now + "|" + tail
    said_was, said_now = word_difference(original, target)
    short_was, short_now = word_difference(f"|{was}|", f"|{now}|")
    assert (_bracketed(said_was), _bracketed(said_now)) == (_bracketed(short_was), _bracketed(short_now))
    assert len(said_was) < 2000 and len(said_now) < 2000


def test_a_megabyte_box_whose_padding_changed_is_said_in_a_few_words() -> None:
    """A 1 MiB thought's box with its padding changed: the border is a million one-character words, which
    the word matcher must never be handed whole (it is quadratic in them)."""
    thought = "x" * 1_000_000
    border = "─" * (len(thought) + 4)
    original = f"┌{border}┐\n│ {thought}   │\n└{border}┘\n"
    target = f"┌{border}┐\n│ {thought} │\n└{border}┘\n"
    said_was, said_now = word_difference(original, target)
    assert _bracketed(said_was).startswith("   ") and not _bracketed(said_now).startswith("   ")
    assert len(said_was) < 1000 and len(said_now) < 1000
