"""compare reads an accepted call's difference with the field its shrunk step bends (`with_suspect`): a string
of digits or "true" in a string field (`thought`, `branchId`) bends nothing, nothing converts it, so it is no
`coercion` (issue 42, held-out-multi-11's plan-hints: a Revision box drawn for `revisesThought` was filed
under `coercion`, "with numeric strings for `thought`", the shrunk thought being "000…"). The same string in a
number or boolean field still is one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.attribution import default_rules
from conformance.compare.observe import Found, with_suspect
from conformance.compare.programs import Step
from conformance.core.jsontypes import JSON

_BOX = Found("stderr", "header", "", "box", "│ 💭 Thought 1/1 │", "│ 🔄 Revision 1/1 │", False)
"""The stderr box of an accepted call, differing at its header."""

_STRINGS = st.one_of(st.from_regex(r"\A-?[0-9]{1,30}\Z"), st.sampled_from(["true", "false"]))
"""Strings a loose reading would call numeric or boolean."""


@given(value=_STRINGS, field=st.sampled_from(["thought", "branchId"]))
def test_a_digit_string_in_a_string_field_is_no_coercion(value: str, field: str) -> None:
    args: dict[str, JSON] = {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1,
                             "nextThoughtNeeded": False,
                             "revisesThought": 1, field: value}
    read = with_suspect(_BOX, Step(arguments=args))
    assert read.suspect == ""
    assert default_rules().attribute(read)[1] != "coercion"


@given(value=_STRINGS, field=st.sampled_from(["thoughtNumber", "totalThoughts", "nextThoughtNeeded"]))
def test_the_same_string_in_a_number_or_boolean_field_still_is(value: str, field: str) -> None:
    args: dict[str, JSON] = {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1,
                             "nextThoughtNeeded": False,
                             field: value}
    read = with_suspect(_BOX, Step(arguments=args))
    assert read.suspect == field
    assert default_rules().attribute(read)[1] == "coercion"
