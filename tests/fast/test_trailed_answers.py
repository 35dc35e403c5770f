"""A fork whose answer is its JSON followed by a section of text (stopuncle-js: "\n\n---\n…next step…")
is read, not stopped at "not JSON": the status is the text's first value (`trailed`, `read_answer`), every
check but OBJ-4's and OBJ-8's own reads it, those two say the trail, and compare still reads the store from
it (tests/servers/reference_fork.py `trailed`)."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.observe import Base, observe
from conformance.core.differences import text_difference
from conformance.core.jsontypes import JSON
from conformance.core.served import read_answer, trailed
from conformance.suite.answers import accepted, rejected, store, trailed_said
from conformance.suite.contradiction import Contradiction
from conformance.suite.session import ServerSession
from tests.servers import VALID, fork_session

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)
_tails = st.text(min_size=1, max_size=60).filter(lambda t: t.strip() != "")


@given(value=st.dictionaries(st.text(max_size=8), _json, max_size=5), tail=_tails,
       gap=st.sampled_from(["", "\n", "\n\n---\n"]), indent=st.sampled_from([None, 2]))
def test_an_object_with_text_after_it_reads_as_the_object(value: dict[str, JSON], tail: str, gap: str,
                                                         indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    found = trailed(text + gap + tail)
    assert found == (text, (gap + tail).strip())
    assert read_answer(text + gap + tail) == value
    assert trailed(text) is None and trailed("  " + text + "\n") is None, "JSON alone has no trail"


@given(value=_json.filter(lambda v: not isinstance(v, dict)), tail=_tails)
def test_only_an_object_is_read_through_a_trail(value: JSON, tail: str) -> None:
    """A text that begins with no object (prose, a number, a list) has no status to read before a trail."""
    assert trailed(json.dumps(value) + "\n" + tail) is None
    assert trailed("Thought recorded.\n" + json.dumps({"a": 1})) is None


def test_an_object_then_a_stray_fence_is_an_object_with_a_trail() -> None:
    assert trailed('{"a": 1}\n```') == ('{"a": 1}', "```") and read_answer('{"a": 1}\n```') == {"a": 1}


def _session(change: str = "trailed") -> AbstractContextManager[ServerSession]:
    return fork_session(change, 20.0)


def test_a_trailing_fork_is_read_through_its_trail() -> None:
    """Accepted and refused answers followed by a "---" section: the status and the refusal are read as the
    original's (no record named), the count included; compare reads the store and still sees the text."""
    with _session() as session:
        first = store(session.call(dict(VALID))).history_length
        exchange = session.call(dict(VALID))
        again = accepted(exchange)
        assert again["thoughtHistoryLength"] == first + 1, again
        assert rejected(session.call({**VALID, "thought": ""})) == "Invalid thought: must be a string"
        text = exchange.text or ""
        said = trailed_said("an accepted call's text", "status object", text)
        assert said.startswith("an accepted call's text is its status object followed by 2 more line(s) of "
                               "text (“---"), said
        outcome = observe(exchange, Base())
        assert outcome.store is not None and outcome.store[0] == first + 1, outcome
        assert not outcome.parses, "the whole text is not JSON: compare tells it from the original's by text"


def test_a_status_naming_its_labels_otherwise_contradicts_obj4_when_probed() -> None:
    """stopuncle-js answers `activeBranches`: 17 checks that probe the store said "no key 'branches' where
    the check read one", and no cause explained them. The probe names OBJ-4, the record the status departs
    from."""
    with _session("active-branches") as session:
        with pytest.raises(Contradiction) as raised:
            session.probe()
        assert raised.value.record == "OBJ-4", raised.value
        assert "the status object has no 'branches'" in str(raised.value), raised.value


@given(value=st.dictionaries(st.text(alphabet="abc", min_size=1, max_size=4), st.integers(), min_size=1,
                             max_size=4), tail=_tails)
def test_a_trail_is_said_as_text_after_the_object_not_plain_text(value: dict[str, JSON], tail: str) -> None:
    """The evidence's sentence for stopuncle-js' answer read "plain text here where the original has a JSON
    object": the object is there, with text after it."""
    original = json.dumps(value, indent=2)
    said = text_difference(original, original + "\n\n---\n" + tail)
    assert said.startswith("a JSON object followed by "), said
    assert "plain text" not in said.split(";")[0], said
