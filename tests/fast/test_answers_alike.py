"""Two answers a check holds equal and that differ only in keys the original never sends are the added keys'
change (OBJ-4), said by those keys and their values, not the check's own claim (issue 42, held-out-multi-8:
"the miss was signalled" and "answer changed with bucket contents" for answers differing by a session counter,
a retained size or a preview, loose departures of the added key's change)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.suite.answers import STATUS_KEYS, expect_alike
from conformance.suite.contradiction import Contradiction

extra_keys = st.sampled_from(["sessionId", "historyCharacters", "preview", "currentBranch"])
values: st.SearchStrategy[JSON] = st.one_of(st.integers(-10**6, 10**6), st.text(max_size=12))
STATUS: dict[str, JSON] = {"thoughtNumber": 2, "totalThoughts": 3, "nextThoughtNeeded": True, "branches": []}


@given(key=extra_keys, here=values, there=values)
def test_answers_differing_only_in_an_added_key_contradict_the_five_fields(key: str, here: JSON,
                                                                           there: JSON) -> None:
    got, other = {**STATUS, key: here}, {**STATUS, key: there}
    if here == there:
        expect_alike(got, other, "for the same call without a label", "the miss was signalled")
        return
    with pytest.raises(Contradiction) as raised:
        expect_alike(got, other, "for the same call without a label", "the miss was signalled")
    assert raised.value.record == "OBJ-4"
    said = str(raised.value)
    assert key in said and "signalled" not in said and "for the same call without a label" in said


@given(key=st.sampled_from([k for k in STATUS_KEYS if k != "thoughtHistoryLength"]), extra=extra_keys,
       here=values, there=values)
def test_a_difference_in_a_key_the_original_sends_is_the_checks_own(key: str, extra: str, here: JSON,
                                                                    there: JSON) -> None:
    """A key of the original's five differing (with or without an added key differing too) is what the check
    looks for: its own claim, its own record."""
    got, other = {**STATUS, key: "x", extra: here}, {**STATUS, key: "y", extra: there}
    with pytest.raises(AssertionError, match="signalled") as raised:
        expect_alike(got, other, "for the same call without a label", "the miss was signalled")
    assert not isinstance(raised.value, Contradiction)
