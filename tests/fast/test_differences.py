"""What differs between the original's answer and a target's is said at the field, or the words, that differ:
the path names a field whose values differ, both values are shown, and equal answers say nothing."""

from __future__ import annotations

import json
from dataclasses import replace
from unittest.mock import patch

from hypothesis import given
from hypothesis import strategies as st

from conformance.core import differences
from conformance.core.differences import (
    GROWN_LIST,
    FieldDifference,
    difference_keys,
    explain,
    json_differences,
    quoted,
    refusal_words,
    serialized_difference,
    text_difference,
    word_difference,
)
from conformance.core.guards import GUARD_REFUSALS, GUARDED_ORDER
from conformance.core.jsontypes import JSON
from conformance.core.spellings import OTHER_SPELLINGS, spell
from conformance.gate.evidence import _about, _family, _speaks_of, breaks
from conformance.suite.answers import refusal_object

_scalars = st.one_of(st.booleans(), st.integers(-5, 5), st.text("abc xyz", max_size=8), st.none())
_json: st.SearchStrategy[JSON] = st.recursive(
    _scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                      st.dictionaries(st.sampled_from("pqrs"), inner, max_size=3)),
    max_leaves=8)
_STATUS: dict[str, JSON] = {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False,
                            "branches": [], "thoughtHistoryLength": 1}


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
    assert "“Current thought number”" in said and "“The number of the current thought”" in said
    assert "'" not in said and "dict(" not in said, "syrupy's Python spelling is no reader's"


def test_lines_only_one_side_has_are_said_as_added_or_dropped() -> None:
    """A fork's description with 15 more lines was said "description: nothing on the original, - PERSISTENT
    SEQUENCES: …", as if the original had no description (nalyk/sequentialthinking)."""
    quotes = "'" * 3
    original = (f"  dict({{\n    'description': {quotes}\n      Key features:\n      - Revise\n"
                f"      Parameters:\n    {quotes},\n  }})")
    added = "      - Revise\n      - Persist sequences\n      - Search them\n"
    served = original.replace("      - Revise\n", added)
    said = serialized_difference(original, served)
    assert "nothing" not in said, said
    assert said.endswith(
        "2 lines added here, which the original does not have: - Persist sequences ⏎ - Search them"), said
    assert serialized_difference(served, original).endswith(
        "2 lines of the original dropped here: - Persist sequences ⏎ - Search them")


def test_why_this_record_quotes_the_statements_words_the_difference_breaks() -> None:
    statement = ('The server advertises version "0.2.0" over the protocol while the package it ships in is '
                 "version 0.6.2; clients are told another version.")
    assert breaks(statement, ['result.serverInfo.version: "0.2.0" on the original, "1.0.0" here']).startswith(
        'The server advertises version "0.2.0"')
    # No clause shares a word: nothing is quoted (the statement is never the words of another difference).
    assert breaks("Nothing in common here.", ["zzz: 1 on the original, 2 here"]) == ""


def test_another_causes_difference_is_not_this_causes_evidence() -> None:
    """A changed serverInfo shows in every replay's initialize: it is evidence for the identity records, not
    for a box that failed to render under load; the count's field is the count's records'."""
    version = FieldDifference("result.serverInfo.version", '"0.2.0"', '"1.0.0"')
    count = FieldDifference("result.content[0].text → thoughtHistoryLength", "1", "2")
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


def _refused(error: str) -> JSON:
    text = json.dumps({"error": error, "status": "failed"}, indent=2)
    return {"result": {"content": [{"type": "text", "text": text}], "isError": True}}


def _schema_refused(message: str) -> JSON:
    text = f"MCP error -32602: {message}"
    return {"result": {"content": [{"type": "text", "text": text}], "isError": True}}


def test_an_accepted_call_the_original_refuses_is_said_first_with_the_refusals_words() -> None:
    """RTE-3's falsy guard on 2025.11.25 and later: `thought: ""` refused by the original, accepted here."""
    first, *rest = explain(_refused("Invalid thought: must be a string"), _answer(_STATUS))
    assert first.said() == ("the original refuses this call — “Invalid thought: must be a string” "
                            "(isError) — and this server accepts it")
    assert not rest, "the accepted answer's fields are no difference of their own beside the refusal"
    (back,) = explain(_answer(_STATUS), _refused("Invalid thought: must be a string"))
    assert back.said().startswith("the original accepts this call and this server refuses it — “Invalid")


@given(words=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=80),
       other=st.booleans())
def test_a_refusal_answered_without_its_flag_is_no_acceptance(words: str, other: bool) -> None:
    """held-out-multi-11's ide-host answers the original's refusal body without isError: “… and this server
    accepts it” was FALSE. Said as a refusal answered unflagged, begun as the original's refusal (one key)."""
    said_here = words + " (here)" if other else words
    body = json.dumps({"error": said_here, "status": "failed"}, indent=2)
    (first,) = explain(_refused(words), {"result": {"content": [{"type": "text", "text": body}]}})
    said = first.said()
    assert said.startswith("the original refuses this call") and "accepts it" not in said, said
    assert said.endswith("without isError: true"), said
    assert ("the same refusal" in said) is not other, said
    (flagged,) = explain(_refused(words), _answer(_STATUS))
    assert flagged.said().endswith("and this server accepts it"), flagged.said()


_BODY_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20), st.just("failed"))


@given(body=st.dictionaries(st.sampled_from(["error", "status", "thought"]), _BODY_VALUES, max_size=3),
       around=st.sampled_from(["", " \n", "Error: ", "\n\nmore text", "\u00a0"]))
def test_the_suite_and_the_explainer_read_one_refusal_body(body: dict[str, JSON], around: str) -> None:
    """One predicate (core's `refusal_body`) for OBJ-8's {error, status: "failed"}: the suite's
    `refusal_object` calls it, and `unflagged` says the words of exactly the bodies it holds, whose `error`
    is a string, from a text that is the object alone (JSON's whitespace around it, nothing else)."""
    text = around + json.dumps(body) if around.startswith("Error") else json.dumps(body) + around
    answer: JSON = {"result": {"content": [{"type": "text", "text": text}]}}
    alone = around.strip(" \t\n\r") == ""
    error = body.get("error")
    assert refusal_object(body) == (body.get("status") == "failed" and "error" in body)
    want = error if alone and refusal_object(body) and isinstance(error, str) else None
    assert differences.unflagged(answer) == want


def test_refusals_naming_other_fields_are_another_field_first_never_a_rewording() -> None:
    """One pair re-tests nothing: the fork may have added a rule as well as reordered its checks, so a run's
    evidence says another field was refused first, never "validation order" (only `compare`, which re-sends
    each side the other's field, may say that)."""
    (said,) = explain(_refused("Invalid totalThoughts: must be a number"),
                      _schema_refused("Invalid arguments for tool sequentialthinking: Invalid input: "
                                      "expected boolean, received string at nextThoughtNeeded"))
    text = said.said()
    assert "`totalThoughts`" in text and "`nextThoughtNeeded`" in text
    assert "another field refused first, not a re-wording" in text
    assert "validation order" not in text  # only a re-test (core/retest.py) tells which rule came first
    assert "re-worded" not in text.replace("not a re-wording", "")


def test_refusals_in_the_same_words_still_differ_in_their_other_keys() -> None:
    """A fork renaming the error status (or adding a timestamp) refuses in the same words: the key that moved
    is the difference, not nothing."""
    renamed = {"result": {"content": [{"type": "text", "text": json.dumps(
        {"error": "Invalid thought: must be a string", "status": "error"}, indent=2)}], "isError": True}}
    (said,) = explain(_refused("Invalid thought: must be a string"), renamed)
    assert said.said() == "result.content[0].text → status: “failed” on the original, “error” here"
    same = _refused("Invalid thought: must be a string")
    assert explain(same, same) == []


def test_a_refusal_turned_protocol_error_says_so_before_the_words() -> None:
    """bartoszkula-ts (round 9): a thought-1 call without a string thought crashes before validation, a
    JSON-RPC error -32603 where the original answers isError; the line, cut at 150 characters, said only
    "both refuse this call, in other words: …", the error's kind left after both quotes."""
    crash: JSON = {"error": {"code": -32603,
                             "message": "Cannot read properties of undefined (reading 'split')"}}
    said, *_ = explain(_refused("Invalid thought: must be a string"), crash)
    text = said.said()
    assert text.startswith("both refuse this call, in other words (and as isError on the original, "
                           "JSON-RPC error -32603 here): “Invalid thought: must be a string” on the "
                           "original"), text
    assert text.count("-32603") == 1, text
    (same_kind,) = explain(_refused("Invalid thought: must be a string"),
                           _refused("Cannot read properties of undefined (reading 'split')"))
    assert same_kind.said().startswith("both refuse this call, in other words: “Invalid thought"), same_kind


def test_the_same_refusal_behind_a_prefix_is_said_as_a_prefix() -> None:
    (said,) = explain(_refused("Invalid thought: must be a string"),
                      _schema_refused("Invalid thought: must be a string"))
    assert said.said() == ("the refusal of `thought` is re-worded: this server puts “MCP error -32602: ” "
                           "before the original's “Invalid thought: must be a string”")


@given(st.text(alphabet="ab \n", min_size=1, max_size=150), st.text(alphabet="cd ", min_size=1, max_size=40))
def test_texts_of_several_lines_are_said_in_lines_never_as_an_escaped_dump(head: str, extra: str) -> None:
    original, target = head + "\nend", head + "\n" + extra + "\nend"
    (said,) = json_differences({"description": original}, {"description": target})
    text = said.said()
    assert "\\n" not in text, text
    assert text.startswith("description: ") and "adds “" in text, text


def test_a_re_indented_block_is_said_as_its_indentation() -> None:
    a = "\n".join(["x"] * 26 + ["* a", "* b", "* c"] + ["y"] * 3)
    b = "\n".join(["x"] * 26 + ["  * a", "  * b", "  * c"] + ["y"] * 3)
    assert text_difference(a, b) == "re-indents lines 27–29 (2 more leading spaces)"


@given(st.text(alphabet="abc {}\"'", min_size=1, max_size=90),
       st.text(alphabet="xyz", min_size=1, max_size=90))
def test_values_under_two_hundred_characters_are_never_cut(a: str, b: str) -> None:
    (said,) = json_differences({"k": a}, {"k": a + b})
    assert "…" not in said.said(), said.said()
    assert said.original == quoted(a) and said.target == quoted(a + b)


@given(st.lists(st.text("abcdefghij", min_size=1, max_size=6), min_size=1, max_size=3, unique=True),
       st.lists(st.text("klmnopq", min_size=1, max_size=6), min_size=1, max_size=3, unique=True))
def test_a_list_grown_at_its_end_is_said_by_the_items_it_gained(kept: list[str], added: list[str]) -> None:
    """A fork listing a tool beside the original's is said by that tool's name, not by two dumps of the list
    (a 300-character description hid the one item that differed)."""
    original = {"tools": [{"name": name, "description": "d" * 300} for name in kept]}
    target = {"tools": [*original["tools"], *({"name": name} for name in added)]}
    (grown,) = json_differences(original, target)
    sentence = grown.said("here")
    assert sentence.startswith(f"tools: {len(kept)} item(s) on the original, {len(kept) + len(added)} here:")
    assert all(f"`{name}`" in sentence for name in added) and sentence.endswith("added")
    assert "d" * 30 not in sentence
    (lost,) = json_differences(target, original)
    assert lost.said("here").endswith("dropped") and all(f"`{name}`" in lost.said() for name in added)


def test_a_grown_tool_list_speaks_of_the_record_about_the_list() -> None:
    """`result.tools` gaining an item is RTE-1's difference (the one tool spec), though "tools" alone is too
    common a word to tie a member's change (a description) to a record."""
    (grown,) = json_differences({"result": {"tools": [{"name": "a"}]}},
                                {"result": {"tools": [{"name": "a"}, {"name": "reset"}]}})
    assert _speaks_of(grown, _about(["RTE-1"])) and not _speaks_of(grown, _about(["OBJ-2"]))
    assert not _speaks_of(FieldDifference("result.tools[0].description", '"a"', '"b"'), _about(["RTE-1"]))


def test_a_list_grown_inside_an_answers_text_is_said_and_known_by_its_kind() -> None:
    """A tool result's text is JSON read as such: a list in it that grew (the labels) keeps its sentence and
    its kind when its path is rewritten to go through the text (it was said "branches:  on the original,
    here", empty on both sides), and it speaks of the record about labels by its kind, whatever words say
    it."""
    def answer(branches: list[str]) -> JSON:
        return {"result": {"content": [{"type": "text", "text": json.dumps({"branches": branches})}]}}

    (grown,) = json_differences(answer(["a"]), answer(["a", "b"]))
    assert grown.kind == GROWN_LIST, grown
    said = grown.said()
    assert said == 'result.content[0].text → branches: 1 item(s) on the original, 2 here: "b" added', said
    assert _speaks_of(grown, {"branches"}) and not _speaks_of(grown, {"thought"})
    reworded = replace(grown, sentence="the labels gained one here")
    assert _speaks_of(reworded, {"branches"})


def _witnessed(status: dict[str, JSON], *, refused: bool = False) -> JSON:
    """The same answer as a witness keeps it (gate/canonical.py): its text parsed, its layout said."""
    item: JSON = {"json": status, "layout": "indent 2", "type": "text"}
    return {"result": {"isError": refused, "content": [item]}}


_REFUSED: dict[str, JSON] = {"error": "Invalid thoughtNumber: must be a number", "status": "failed"}


def test_a_difference_has_the_same_keys_in_a_response_and_in_a_witness_answer() -> None:
    """A run's pair (JSON-RPC responses) is held against a baseline's pinned witness (canonical answers):
    the same change must key alike in both, or no entry could ever cover a departure (gate/pinned.py)."""
    changes: list[dict[str, JSON]] = [{"branches": ["alpha", "zeta"]}, {"thoughtHistoryLength": 4},
                                      {"extra": 1}]
    for change in changes:
        before: dict[str, JSON] = _STATUS | {"branches": ["zeta", "alpha"]}
        after = before | change
        from_responses = difference_keys(_answer(before), _answer(after))
        assert from_responses and from_responses == difference_keys(_witnessed(before), _witnessed(after))
    refused: JSON = {"result": {"isError": True, "content": [{"type": "text", "text": json.dumps(_REFUSED)}]}}
    assert difference_keys(_answer(_STATUS), refused) == {"refused by this server: thoughtNumber"}
    assert difference_keys(_witnessed(_STATUS), _witnessed(_REFUSED, refused=True)) == {
        "refused by this server: thoughtNumber"}
    assert difference_keys(refused, _answer(_STATUS)) == {"refused by the original: thoughtNumber"}


def test_keys_tell_one_change_from_another() -> None:
    """Sorted labels are not a count grown twice, nor a refusal of another field: an entry pinning one covers
    neither of the others."""
    labels = difference_keys(_answer(_STATUS | {"branches": ["b", "a"]}),
                             _answer(_STATUS | {"branches": ["a", "b"]}))
    count = difference_keys(_answer(_STATUS), _answer(_STATUS | {"thoughtHistoryLength": 2}))
    total: JSON = {"result": {"isError": True, "content": [{"type": "text", "text": json.dumps(
        {"error": "Invalid totalThoughts: must be a number", "status": "failed"})}]}}
    refused: JSON = {"result": {"isError": True, "content": [{"type": "text", "text": json.dumps(_REFUSED)}]}}
    assert labels == {"branches"} and count == {"thoughtHistoryLength"}
    assert difference_keys(_answer(_STATUS), total) != difference_keys(_answer(_STATUS), refused)
    assert difference_keys(refused, total) == {"validation order: thoughtNumber then totalThoughts"}
    compact: JSON = {"result": {"content": [{"type": "text", "text": json.dumps(_STATUS)}]}}
    assert difference_keys(_answer(_STATUS), compact) == {"layout"}
    assert difference_keys(_answer(_STATUS), _answer(_STATUS)) == frozenset()


class _CountingWords:
    """The word pattern, counting the characters handed to it: the work a word difference does."""

    def __init__(self) -> None:
        self.chars = 0

    def findall(self, text: str) -> list[str]:
        self.chars += len(text)
        return list(_WORDS.findall(text))


_WORDS = differences._WORD


@given(size=st.integers(0, 300_000), other=st.text(alphabet="ab {}\n\"", max_size=300))
def test_a_huge_differing_text_is_split_only_at_its_head_and_its_length_is_said(
    size: int, other: str
) -> None:
    """The deep-text server's answers are 200 KB of brackets against the original's few lines: only a bounded
    head of the differing span is split into words (86 such departures spent minutes here), the length is said
    when the text was cut, and a text whose differing span is under a few KB is said as before, whole."""
    brackets = "[" * (size // 2) + "]" * (size - size // 2)
    counting = _CountingWords()
    with patch.object(differences, "_WORD", counting):
        was, now = word_difference(other, brackets)
    bound = 2 * (differences._WINDOW_CHARS + differences._SPLIT_CHARS) + len(other)
    assert counting.chars <= bound, (counting.chars, bound)
    cut = size > differences._WINDOW_CHARS + differences._SPLIT_CHARS
    assert now.endswith(f" (of {size:,} characters)") is cut, now[-60:]
    assert "(of " not in was
    assert ("…" in now) is cut, now[-60:]


@given(depth=st.integers(min_value=2_000, max_value=100_000), bracket=st.sampled_from(["[]", "{}"]))
def test_a_text_nested_past_the_interpreters_depth_is_plain_text(depth: int, bracket: str) -> None:
    """The hostile deep-text answer (100,000 brackets deep) against the original's JSON: `json.loads` raised
    RecursionError from the JSON-vs-text wording, and a dev run against it ended in a traceback."""
    nested = "[" * depth + "]" * depth if bracket == "[]" else '{"a":' * depth + "1" + "}" * depth
    said = text_difference('{\n  "thoughtNumber": 1\n}', nested)
    assert said.startswith("plain text {here} where the original has a JSON object"), said[:200]
    assert refusal_words(nested).startswith(nested[:20]), "a deep text is its own words, not a refusal's JSON"


def _guard_refusal(field: str) -> JSON:
    text = json.dumps({"error": GUARD_REFUSALS[field], "status": "failed"}, indent=2)
    return {"result": {"content": [{"type": "text", "text": text}], "isError": True}}


_ACCEPTED: JSON = {"result": {"content": [{"type": "text", "text": '{"thoughtNumber": 1}'}]}}


@given(field=st.sampled_from(GUARDED_ORDER), spelling=st.sampled_from(OTHER_SPELLINGS),
       exact=st.booleans())
def test_a_call_accepted_for_a_name_spelled_otherwise_says_which_name_was_read(
        field: str, spelling: str, exact: bool) -> None:
    """held-out-multi-12's fork reads `ThoughtNumber` for a missing `thoughtNumber`; the original refuses the
    call naming the field: the sentence says which key this server read for it, and says nothing when the
    call carries the field itself or the spelling does not change it."""
    key = spell(field, spelling)
    arguments: dict[str, JSON] = {key: "x"}
    if exact:
        arguments[field] = "y"
    said = explain(_guard_refusal(field), _ACCEPTED, arguments)[0].sentence
    assert said.startswith(f"the original refuses this call — “{GUARD_REFUSALS[field]}”"), said
    if exact or key == field:
        assert said.endswith("and this server accepts it"), said
    else:
        assert said.endswith(f"and this server accepts it, reading `{key}` for `{field}` (another "
                             "spelling of the name, which the original does not read)"), said


def test_a_name_read_respelled_is_another_key_than_a_value_let_through() -> None:
    """Two changes of one fork accepting calls the original refuses naming `thought`: `Thought` read for it,
    and a numeric thought taken; matched on the same key they were grouped as one change."""
    respelled = difference_keys(_guard_refusal("thought"), _ACCEPTED, {"Thought": "t"})
    numeric = difference_keys(_guard_refusal("thought"), _ACCEPTED, {"thought": 42})
    assert numeric == difference_keys(_guard_refusal("thought"), _ACCEPTED) == frozenset(
        {"refused by the original: thought"})
    assert respelled == frozenset({"refused by the original: thought, read respelled"}), respelled


def test_a_name_read_respelled_is_its_own_family_in_the_grouping() -> None:
    """The gate's grouping matched a numeric thought let through (RTE-3/a1) with `Thought` read for `thought`
    (BAP-4's cause): both were "refusal of thought"."""
    plain = explain(_guard_refusal("thought"), _ACCEPTED, {"thought": 7})[0].sentence
    respelled = explain(_guard_refusal("thought"), _ACCEPTED, {"Thought": "t"})[0].sentence
    assert _family(plain) == "refusal of thought", _family(plain)
    assert _family(respelled) == "refusal of thought, read respelled", _family(respelled)


def test_a_name_read_respelled_is_no_guard_moved_when_causes_fold() -> None:
    """Causes showing one guard moved fold into one (a fork numbering from 0); `Thought` read for `thought`
    folded with a numeric thought taken, "BAP-4, RTE-3/a1 depart", two changes said as one."""
    from conformance.gate.evidence import _refusal_shown
    from conformance.report.model import Evidence

    def shown(arguments: dict[str, JSON]) -> tuple[str, str] | None:
        said = explain(_guard_refusal("thought"), _ACCEPTED, arguments)[0].sentence
        pair = Evidence(reproduced=True, at="on the example's tools/call 1", differences=[said])
        return _refusal_shown(pair, None)

    assert shown({"thought": 7}) == ("tools/call", "the guard of `thought`")
    assert shown({"Thought": "t"}) == ("tools/call", "the guard of `thought`, read respelled")


@given(st.integers(min_value=2, max_value=12), st.data())
def test_a_changed_line_is_said_without_a_line_count_alike(lines: int, data: st.DataObject) -> None:
    """npm:2026.8.31's RTE-9/a1 headline read "stderr: 6 lines on each side; and 1 more": the count, kept by
    the cut, said nothing; the change it cut away was the news."""
    at = data.draw(st.integers(min_value=0, max_value=lines - 1))
    a = [f"line {i}" for i in range(lines)]
    b = [*a[:at], "other words", *a[at + 1:]]
    said = text_difference("\n".join(a), "\n".join(b))
    assert said.startswith(f"changes line {at + 1} "), said
    assert "on each side" not in said, said
    longer = text_difference("\n".join(a), "\n".join([*b, "more"]))
    assert longer.startswith(f"{lines + 1} lines {{here}} where the original has {lines}"), longer
