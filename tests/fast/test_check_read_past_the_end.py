"""A check that indexes past the end of what it was served, or looks up a line the served text lacks,
fails with Python's words ("list index out of range", "'Key features:' is not in list"); a report must not
quote those as if the server had said them (stopuncle-js' OBJ-11, round 14): `readable` says what the check
met instead."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.failure_text import readable


def test_an_index_error_is_said_as_a_served_value_shorter_than_the_original() -> None:
    said = readable("IndexError: list index out of range")
    assert said.startswith("what the server served is shorter than the check reads"), said
    assert said != "list index out of range"


@given(line=st.text(alphabet="abcdefghij :-", min_size=1, max_size=30))
def test_a_line_not_in_the_served_text_is_named(line: str) -> None:
    said = readable(f"ValueError: {line!r} is not in list")
    assert said == f"no {line!r} in what the server served, where the check looked for the original's", said


def test_a_check_s_own_message_is_kept() -> None:
    """Only Python's bare words are replaced: an assertion's message stays the check's."""
    own = "description lines 5, 13 and 14 are …"
    assert readable(f"AssertionError: {own}") == own
