"""`thoughtNumber` and `thought_number` are one field spelled two ways: a mapped compare (`--arguments-map
snake_case`) of a port refusing in its own names said "refusals name other fields first — `thoughtNumber` vs
`thought_number`", the mapping's own artefact (chinng-py, round 13). Only two different fields are another
field refused first."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from conformance.compare.wording import validation_order
from conformance.core.arguments_map import snake_case
from conformance.core.differences import other_fields, refusal_in_text, refusals_compared
from conformance.core.protocol import ARGUMENT_NAMES

_names = st.sampled_from(sorted(ARGUMENT_NAMES))


def _refusal(name: str) -> str:
    return f"isError Invalid {name}: must be a number"


@given(name=_names)
def test_a_field_and_its_snake_case_spelling_are_one_field(name: str) -> None:
    a, b = _refusal(name), _refusal(snake_case(name))
    assert not other_fields(name, snake_case(name))
    assert validation_order([(a, b)]) is None
    said = refusals_compared(refusal_in_text(a), refusal_in_text(b))
    assert "other fields" not in said and "another field" not in said, said


@given(first=_names, second=_names)
def test_two_different_fields_are_still_another_field_first(first: str, second: str) -> None:
    assume(first != second)
    a, b = _refusal(first), _refusal(snake_case(second))
    assert other_fields(first, snake_case(second))
    assert validation_order([(a, b)]) == (first, snake_case(second))
