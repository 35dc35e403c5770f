"""A refusal that names its field with the value it was given, “revisesThought (5) must be earlier than
thoughtNumber (3)” (issue 42, PR #4100's head), names that field: read as naming none, compare said a base
crash on `branchId` and this rule were one refusal "worded otherwise" and never re-tested the pair."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.differences import field_named

FIELDS = ("thoughtNumber", "totalThoughts", "revisesThought", "branchFromThought", "branchId")
VALUES = st.one_of(st.integers(-10**6, 10**6).map(str),
                   st.text("abcxyz0123456789 .=", min_size=1, max_size=20))
RULES = ("must be earlier than thoughtNumber (3)", "is required when isRevision is true",
         "should be below totalThoughts")


@given(field=st.sampled_from(FIELDS), value=VALUES, rule=st.sampled_from(RULES))
def test_a_field_named_with_its_value_before_the_rule_is_the_field(field: str, value: str, rule: str) -> None:
    words = f"{field} ({value}) {rule}"
    assert field_named(words) == field, words
    assert field_named(f"{field} {rule}") == field

