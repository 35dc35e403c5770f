"""The spellings of the original's argument names (core/spellings.py): each is a renaming the stop can detect
from a schema, name back from a mapping, and `--arguments-map` can ask for by name."""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Iterator
from typing import Final

import pytest
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
from conformance.suite import test_validation
from conformance.suite.contradiction import Contradiction
from conformance.suite.session import ServerSession
from conformance.targets.specs import resolve_target
from tests.servers import fork_target, session_on

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


# -- the suite's probe: the original's call in every other spelling, on real processes ---------------------

REFERENCE: Final = resolve_target("cmd:" + shlex.join([sys.executable, "-m", "reference_server"]))


@pytest.fixture
def session(request: pytest.FixtureRequest) -> Iterator[ServerSession]:
    with session_on(fork_target(request.param) if request.param else REFERENCE) as opened:
        yield opened


@pytest.mark.parametrize("session", [""], indirect=True)
def test_the_reference_refuses_every_other_spelling_with_its_guards_words(session: ServerSession) -> None:
    test_validation.test_the_originals_call_in_every_other_spelling_is_refused_for_its_missing_field(session)


_ANY_CASE: Final = (
    "accepts `ThoughtNumber`, `thoughtnumber`, `THOUGHTNUMBER` for `thoughtNumber` (any letter case: "
    "PascalCase, lowercase and UPPERCASE calls accepted), where the original reads only its own names and "
    "refuses the call for the missing field: “Invalid thought: must be a string”")
_ANY_SEPARATOR: Final = (
    "accepts `thought_number`, `thought-number`, `ThoughtNumber`, `thoughtnumber`, `THOUGHTNUMBER` for "
    "`thoughtNumber` (every spelling: snake_case, kebab-case, PascalCase, lowercase and UPPERCASE calls "
    "accepted), where the original reads only its own names and refuses the call for the missing field: "
    "“Invalid thoughtNumber: must be a number”")


@pytest.mark.parametrize(("session", "said"), [
    ("any-case", _ANY_CASE), ("any-separator", _ANY_SEPARATOR),
], indirect=["session"])
def test_a_fork_reading_other_spellings_departs_under_bap4_saying_which(session: ServerSession,
                                                                        said: str) -> None:
    """held-out-multi-12's fork-small-model-friendly matched names ignoring case and no call ever carried a
    case variant: the check sends each spelling once and says which the fork takes."""
    with pytest.raises(Contradiction) as raised:
        test_validation.test_the_originals_call_in_every_other_spelling_is_refused_for_its_missing_field(
            session)
    assert raised.value.record == "BAP-4", raised.value
    assert str(raised.value) == f"BAP-4 contradicted: {said}", str(raised.value)
