"""Reading the store's state from an accepted answer (`suite/answers.store`, `calls/store.state_of`): most
calls of a run go through one of them, so they read the label list in C-level passes; these pin what they
say."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.store import StoreState, state_of
from conformance.core.jsontypes import JSON
from conformance.drivers.wire import Exchange
from conformance.suite.answers import store
from conformance.suite.contradiction import Contradiction


def _answer(branches: list[JSON], length: int = 3) -> Exchange:
    status = {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": True, "branches": branches,
              "thoughtHistoryLength": length}
    text = json.dumps(status, indent=2)
    response: dict[str, JSON] = {"result": {"content": [{"type": "text", "text": text}]}}
    return Exchange("tools/call", {}, response, b"", 0.0, 0.0)


@given(labels=st.lists(st.text(), max_size=20), length=st.integers(min_value=0, max_value=10**6))
def test_string_labels_are_read_in_order(labels: list[str], length: int) -> None:
    expected = StoreState(length, tuple(labels))
    assert store(_answer(list(labels), length)) == expected
    assert state_of(_answer(list(labels), length)) == expected


@pytest.mark.parametrize("odd", [1, 1.5, True, None, ["a"], {"a": 1}])
def test_a_label_that_is_not_a_string_fails_the_check(odd: JSON) -> None:
    """A `branches` item that is not a string contradicts OBJ-3 (the map's keys, strings), whichever check
    read the answer: the item is quoted as the server wrote it."""
    with pytest.raises(Contradiction, match="not a label string") as raised:
        store(_answer(["a", odd, "b"]))
    assert raised.value.record == "OBJ-3"
    assert json.dumps([odd]) in str(raised.value), raised.value


def test_the_compare_side_reads_any_label_as_its_string() -> None:
    assert state_of(_answer(["a", 7, True])) == StoreState(3, ("a", "7", "True"))
