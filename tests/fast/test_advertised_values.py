"""What a served schema advertises is sent, on accepted and refused calls (issue 42, held-out-multi-11's
unsent changes): a refusal answered otherwise for `responseFormat: "markdown"`, a value a `oneOf` branch
offers for `totalThoughts`, and a sentinel word ("auto") taken for a number. The reading of the schema
(calls/advertised.py) is bounded whatever the schema holds; the checks run against real processes
(tests/servers/reference_fork.py `format-on-request`, `advertised-total`, `auto-total`) and the reference,
which they must leave green."""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Iterator
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.advertised import (
    ADVERTISED_MAX,
    WORDS_MAX,
    advertised_values,
    described_words,
    served_properties,
)
from conformance.calls.probes import RANGE_PLACES, declared_values
from conformance.calls.strategies import OPTIONAL, REQUIRED
from conformance.suite import test_absences, test_validation
from conformance.suite.contradiction import Contradiction
from conformance.suite.session import ServerSession
from conformance.targets.specs import resolve_target
from tests.servers import fork_target, session_on

REFERENCE: Final = resolve_target("cmd:" + shlex.join([sys.executable, "-m", "reference_server"]))


@pytest.fixture
def session(request: pytest.FixtureRequest) -> Iterator[ServerSession]:
    target = fork_target(request.param) if request.param else REFERENCE
    with session_on(target) as opened:
        yield opened


# -- reading a schema -----------------------------------------------------------------------------------


def test_the_values_a_schema_names_are_read_in_its_order() -> None:
    assert advertised_values({"type": "string", "enum": ["json", "markdown"], "default": "json"}) == [
        "json", "markdown"]
    assert advertised_values({"oneOf": [{"type": "integer", "minimum": 1}, {"const": "auto"}]}) == [
        "auto", 2]
    assert advertised_values({"anyOf": [{"type": "number"}, {"type": "string"}]}) == [2.5, "probe"]
    assert advertised_values({"type": ["integer", "string"]}) == [2, "probe"]
    # One shape the search already draws from: nothing to add.
    assert advertised_values({"type": "integer", "minimum": 1}) == []
    assert advertised_values({"type": "string", "examples": ["a plan"]}) == ["a plan"]


_schemas = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=300)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=20),
        st.dictionaries(st.sampled_from(["type", "enum", "const", "default", "examples", "oneOf", "anyOf",
                                         "allOf", "x"]), inner, max_size=6)),
    max_leaves=60)


@given(schema=_schemas)
def test_any_schema_gives_a_few_scalars_alike_each_time(schema: object) -> None:
    """Hostile data: never more than ADVERTISED_MAX values, each a JSON scalar (strings at most 200
    characters), the same list on every reading."""
    values = advertised_values(schema)
    assert len(values) <= ADVERTISED_MAX
    assert all(v is None or isinstance(v, bool | int | float) or (isinstance(v, str) and len(v) <= 200)
               for v in values), values
    assert advertised_values(schema) == values
    assert json.loads(json.dumps(values)) == values


# -- the checks on real processes -----------------------------------------------------------------------


@pytest.mark.parametrize("session", [""], indirect=True)
def test_the_reference_advertises_nothing_and_passes_each_check(session: ServerSession) -> None:
    """The original's schema names no value (so nothing more is sent to it); the sentinel words are
    refused as the guards say."""
    properties = served_properties(session.wire.list_tools().result)
    assert sorted(properties) == sorted((*REQUIRED, *OPTIONAL))
    assert all(advertised_values(schema) == [] for schema in properties.values())
    test_validation.test_values_the_served_schema_advertises_are_judged_by_the_guards(session)
    test_absences.test_an_extra_declared_argument_on_a_refused_call_changes_nothing(session)
    for field, words in test_validation.SENTINEL_WORDS.items():
        for word in words:
            test_validation._decided_by_guards(session, {**test_validation._VALID, field: word})


@pytest.mark.parametrize("session", ["format-on-request"], indirect=True)
def test_a_refusal_answered_otherwise_for_an_advertised_value_departs_under_obj8(
        session: ServerSession) -> None:
    with pytest.raises(Contradiction) as raised:
        test_absences.test_an_extra_declared_argument_on_a_refused_call_changes_nothing(session)
    assert raised.value.record == "OBJ-8"
    assert "**Error:** Invalid thought: must be a string" in str(raised.value), raised.value
    assert "'responseFormat': 'markdown'" in str(raised.value) or '"responseFormat": "markdown"' in str(
        raised.value), raised.value


@pytest.mark.parametrize("session", ["advertised-total"], indirect=True)
def test_a_value_a_oneof_branch_offers_for_a_number_departs_under_rte3(session: ServerSession) -> None:
    with pytest.raises(Contradiction) as raised:
        test_validation.test_values_the_served_schema_advertises_are_judged_by_the_guards(session)
    assert raised.value.record == "RTE-3", raised.value
    assert "open-ended" in str(raised.value), raised.value


def test_the_guard_check_sends_each_sentinel_word_first() -> None:
    check = test_validation.test_guards_decide_acceptance
    sent = [dict(e.kwargs) for e in check.hypothesis_explicit_examples]
    assert {"arguments": {**test_validation._VALID, "totalThoughts": "auto"}} in sent
    assert {"arguments": {**test_validation._VALID, "thoughtNumber": "auto"}} in sent


@pytest.mark.parametrize("session", ["auto-total"], indirect=True)
def test_a_sentinel_word_taken_for_a_number_departs_under_rte3(session: ServerSession) -> None:
    """Its schema unchanged: only the fixed word reaches it."""
    test_validation.test_values_the_served_schema_advertises_are_judged_by_the_guards(session)
    with pytest.raises(Contradiction) as raised:
        test_validation._decided_by_guards(session, {**test_validation._VALID, "totalThoughts": "auto"})
    assert raised.value.record == "RTE-3", raised.value


# -- an extra declared array, sent with one value of its type (held-out-multi-12's dependsOn) ----------

DEPENDS_ON: Final = {"type": "array", "items": {"type": "integer", "minimum": 1}}


def test_an_array_of_thought_numbers_is_sent_as_recorded_thoughts() -> None:
    """1 low in the range, the probe's own (recorded) thoughtNumber at its top, below the minimum past it."""
    assert [declared_values(DEPENDS_ON, place) for place in RANGE_PLACES] == [[[1]], [[2]], [[0]]]
    assert declared_values({**DEPENDS_ON, "minItems": 2}, RANGE_PLACES[1]) == [[2, 2]]
    assert declared_values({"type": "array", "items": {"type": "string", "maxLength": 3}},
                           RANGE_PLACES[0]) == [["pro"]]
    assert declared_values({"type": "array", "items": {"type": "integer", "minimum": 5}},
                           RANGE_PLACES[0]) == [[5]]
    assert declared_values({**DEPENDS_ON, "maxItems": 0}, RANGE_PLACES[1]) == []
    assert declared_values({"type": "array"}, RANGE_PLACES[1]) == []


_array_schemas = st.fixed_dictionaries({"type": st.sampled_from(["array", ["array", "null"], "x"])},
                                       optional={
    "items": st.one_of(st.none(), st.text(max_size=5), st.dictionaries(
        st.sampled_from(["type", "minimum", "maximum", "minLength", "maxLength", "enum", "exclusiveMinimum"]),
        st.one_of(st.sampled_from(["integer", "number", "string", "boolean"]), st.integers(),
                  st.floats(allow_nan=False), st.lists(st.integers(), max_size=3), st.none()), max_size=4)),
    "minItems": st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=3)),
    "maxItems": st.one_of(st.integers(), st.none())})


@given(schema=_array_schemas, place=st.sampled_from(RANGE_PLACES))
def test_any_array_schema_gives_at_most_one_short_json_array(schema: dict[str, object], place: str) -> None:
    """Hostile data: at most one value, an array of at most eight JSON scalars, the same each reading."""
    values = declared_values(schema, place)
    assert len(values) <= 1 and declared_values(schema, place) == values
    for value in values:
        assert isinstance(value, list) and 1 <= len(value) <= 8, value
        assert json.loads(json.dumps(value)) == value


@pytest.mark.parametrize("session", ["depends-on"], indirect=True)
def test_an_extra_declared_array_echoed_in_the_answer_departs_under_obj13(session: ServerSession) -> None:
    """Its schema's dependsOn has no enum or default: only a value of its type reaches the change."""
    with pytest.raises(Contradiction) as raised:
        test_absences.test_an_extra_declared_argument_at_the_top_of_its_range_changes_nothing(session)
    assert raised.value.record == "OBJ-13", raised.value
    assert "dependsOn" in str(raised.value), raised.value
    test_absences.test_an_extra_declared_argument_on_a_refused_call_changes_nothing(session)


@given(before=st.integers(min_value=0, max_value=3))
def test_the_served_properties_are_this_tools_wherever_it_is_listed(before: int) -> None:
    """A fork listing another tool first (held-out-multi-12's `get_thought_history`) lends it no argument."""
    other = {"name": "get_thought_history", "inputSchema": {"properties": {"cursor": {"enum": ["a", "b"]}}}}
    this = {"name": "sequentialthinking", "inputSchema": {"properties": {"thought": {"type": "string"}}}}
    listed = {"tools": [other] * before + [this, other]}
    assert list(served_properties(listed)) == ["thought"]


# -- a word a description quotes for a numeric field (no fixed list holds it) -----------------------------


def test_a_quoted_word_is_read_from_the_fields_description_and_the_tools_line_naming_it() -> None:
    schema = {"type": "integer", "description": 'Estimate; use "tbd" when unsure, or `open`'}
    assert described_words("totalThoughts", schema) == ["tbd", "open"]
    tool = ("- total_thoughts: your estimate, or 'plan' to let the server decide\n"
            "- thought_number: the number, \"thoughtNumber\" in the schema\n"
            'Don\'t stop at the "end"')
    assert described_words("totalThoughts", {}, tool) == ["plan"]
    assert described_words("thoughtNumber", {}, tool) == [], "a quoted field name is no value"


@pytest.mark.parametrize("session", [""], indirect=True)
def test_the_originals_descriptions_quote_no_word_for_a_numeric_field(session: ServerSession) -> None:
    listed = session.wire.list_tools().result
    properties = served_properties(listed)
    description = listed["tools"][0]["description"] if isinstance(listed, dict) else None
    assert isinstance(description, str) and "- total_thoughts:" in description
    for field in test_validation.NUMERIC_FIELDS:
        assert described_words(field, properties[field], description) == [], field


@given(text=st.text(max_size=6000), field=st.sampled_from(test_validation.NUMERIC_FIELDS))
def test_any_description_gives_a_few_short_words(text: str, field: str) -> None:
    """Hostile data: at most WORDS_MAX words, each a short identifier-like word, the same each reading."""
    words = described_words(field, {"description": text}, text)
    assert len(words) <= WORDS_MAX and len(set(words)) == len(words), words
    assert all(re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,23}", w) for w in words), words
    assert described_words(field, {"description": text}, text) == words


@pytest.mark.parametrize(("session", "word"), [("described-total", "tbd"), ("described-number", "following")],
                         indirect=["session"])
def test_a_word_only_a_description_quotes_taken_for_a_number_departs_under_rte3(session: ServerSession,
                                                                                word: str) -> None:
    """Neither word is a fixed sentinel word: only reading the served descriptions sends it."""
    assert all(word not in words for words in test_validation.SENTINEL_WORDS.values())
    with pytest.raises(Contradiction) as raised:
        test_validation.test_values_the_served_schema_advertises_are_judged_by_the_guards(session)
    assert raised.value.record == "RTE-3", raised.value
