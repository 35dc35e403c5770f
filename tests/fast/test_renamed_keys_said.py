"""A pair whose answer lacks keys the original writes and has new keys carrying the same values says the keys
renamed, old → new (issue 42, held-out-multi-11's toolkit-port: "thoughtNumber: 2 on the original, absent
here; and 7 more beside it: …" read as keys dropped). Keys dropped with no new key of their value, or new keys
of other values, are said as before."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.arguments_map import snake_case
from conformance.report.model import Evidence, renamed_keys

_AT = "result.content[0].text → "
_KEYS = ["thoughtNumber", "totalThoughts", "nextThoughtNeeded", "thoughtHistoryLength"]


def _pair(differences: list[str]) -> Evidence:
    return Evidence(reproduced=True, at="on the example's tools/call 1", original_spec="npm:0.6.2",
                    differences=differences)


def _renamed(values: list[int], rename: bool) -> list[str]:
    """The original's keys gone and, when `rename`, their snake_case spellings answered with the same values
    (else with other values)."""
    gone = [f"{_AT}{key}: {value} on the original, absent here"
            for key, value in zip(_KEYS, values, strict=True)]
    new = [f"{_AT}{snake_case(key)}: absent on the original, {value if rename else value + 1000} here"
           for key, value in zip(_KEYS, values, strict=True)]
    return gone + new


@given(values=st.lists(st.integers(min_value=0, max_value=99), min_size=4, max_size=4))
def test_keys_answered_under_other_names_are_said_renamed(values: list[int]) -> None:
    line = _pair(_renamed(values, rename=True)).headline()
    assert line.startswith("answer keys renamed, values alike: thoughtNumber → thought_number")
    assert "absent here" not in line
    assert [(old[1], new[1]) for old, new in renamed_keys(_renamed(values, rename=True))] == [
        (key, snake_case(key)) for key in _KEYS]


@given(values=st.lists(st.integers(min_value=0, max_value=99), min_size=4, max_size=4))
def test_new_keys_of_other_values_are_no_rename(values: list[int]) -> None:
    line = _pair(_renamed(values, rename=False)).headline()
    assert "renamed" not in line
    assert line.startswith(f"thoughtNumber: {values[0]} on the original, absent here")


@given(value=st.integers(min_value=0, max_value=99), other=st.sampled_from(["timestamp", "sessionId"]))
def test_one_new_key_of_the_same_value_is_a_rename_of_the_one_key_gone(value: int, other: str) -> None:
    """Spelled otherwise entirely, a key gone and one new key of its value, the only pair holding it."""
    differences = [f"{_AT}thoughtNumber: {value} on the original, absent here",
                   f"{_AT}{other}: absent on the original, {value} here"]
    assert [(o[1], n[1]) for o, n in renamed_keys(differences)] == [("thoughtNumber", other)]
