"""The spellings of the original's argument names (core/spellings.py): each is a renaming the stop can detect
from a schema, name back from a mapping, and `--arguments-map` can ask for by name."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.arguments_map import renames_of
from conformance.core.protocol import ARGUMENT_NAMES
from conformance.core.spellings import (
    CAMEL_CASE,
    OTHER_SPELLINGS,
    SPELLINGS,
    detected,
    every_spelling,
    spell,
    spelling_map,
    spelling_named,
)

_SHAPES = {
    "snake_case": r"[a-z]+(_[a-z]+)*",
    "kebab-case": r"[a-z]+(-[a-z]+)*",
    "PascalCase": r"([A-Z][a-z]+)+",
    "lowercase": r"[a-z]+",
    "UPPERCASE": r"[A-Z]+",
    "camelCase": r"[a-z]+([A-Z][a-z]+)*",
}


def test_the_originals_own_spelling_changes_nothing() -> None:
    assert spelling_map(CAMEL_CASE) == {}
    assert spell("branchFromThought", "kebab-case") == "branch-from-thought"
    assert spell("branchId", "UPPERCASE") == "BRANCHID"
    assert spell("thought", "PascalCase") == "Thought"


@given(spelling=st.sampled_from(SPELLINGS), name=st.sampled_from(ARGUMENT_NAMES))
def test_each_name_takes_its_spellings_shape_and_keeps_its_letters(spelling: str, name: str) -> None:
    spelled = spell(name, spelling)
    assert re.fullmatch(_SHAPES[spelling], spelled), (spelling, spelled)
    assert re.sub(r"[-_]", "", spelled).lower() == name.lower(), spelled


@given(spelling=st.sampled_from(OTHER_SPELLINGS),
       listed=st.sets(st.sampled_from(ARGUMENT_NAMES), min_size=1))
def test_a_schema_in_one_spelling_is_detected_as_it_and_its_mapping_named(spelling: str,
                                                                          listed: set[str]) -> None:
    """Any subset of the names a port lists (at least one that the spelling changes) is detected as its
    spelling, and the mapping of those names is named as that spelling, as `--arguments-map` reads it."""
    renames = {k: v for k, v in spelling_map(spelling).items() if k in listed}
    properties = [spell(name, spelling) for name in listed]
    if renames:
        assert detected(properties) == spelling, (properties, detected(properties))
        assert spelling_named(renames) == spelling, renames
    assert renames_of(spelling) == spelling_map(spelling)
    assert set(properties) <= every_spelling()


def test_a_mapping_that_is_no_spelling_is_named_none() -> None:
    assert spelling_named({"thoughtNumber": "n"}) is None
    assert spelling_named({}) is None
    assert detected(["text", "step"]) is None
