"""A type-checked field sent as another type that spells one of its own ("false" for a boolean, "5" for a
number) and read as that value is OBJ-10's departure, said as the values taken, what they were read as and the
original's refusal (issue 42: held-out-multi-14's typed-arguments read "true"/"false" for nextThoughtNeeded;
`compare` named it, no run said it, its one RTE-3 cause being another change's). Real processes: the
reference and one-mode forks of it (tests/servers/reference_fork.py)."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from contextlib import AbstractContextManager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.calls.strategies import json_values
from conformance.core.differences import explain
from conformance.core.guards import GUARD_REFUSALS
from conformance.core.jsontypes import JSON
from conformance.report.model import HEADLINE_PAIR_CHARS
from conformance.suite.answers import rejected
from conformance.suite.contradiction import Contradiction
from conformance.suite.session import ServerSession
from conformance.suite.test_validation import test_values_spelling_the_type_are_refused as spelled_check
from conformance.targets.specs import resolve_target
from tests.servers import command, session_on

PLAIN: dict[str, JSON] = {"thought": "first", "thoughtNumber": 1, "totalThoughts": 1,
                          "nextThoughtNeeded": False}


def _session(spec: str) -> AbstractContextManager[ServerSession]:
    return session_on(resolve_target(spec))


def _fork(mode: str) -> str:
    return "cmd:" + shlex.join(command("reference_fork", mode))


@pytest.fixture(scope="module")
def strings_read() -> Iterator[ServerSession]:
    with _session(_fork("next-needed-strings")) as session:
        yield session


def test_the_check_says_which_spellings_are_read_and_which_still_refused(strings_read: ServerSession) -> None:
    with pytest.raises(Contradiction) as raised:
        spelled_check(strings_read)
    assert raised.value.record == "OBJ-10", raised.value
    said = str(raised.value)
    assert "takes `nextThoughtNeeded` given as “true” and “false” as the booleans they spell" in said, said
    assert "(answered `nextThoughtNeeded`: true, false)" in said, said
    assert f"refuses each with “{GUARD_REFUSALS['nextThoughtNeeded']}”" in said, said
    assert "“True”, “FALSE”, “1”, “0”, “yes”, “no”, 1 and 0 refused as the original does" in said, said
    assert "thoughtNumber" not in said, said


def test_digits_read_for_numbers_are_said_alike() -> None:
    """Another member of the class: a fork reading digit strings as numbers (PR #2812's head)."""
    with _session(_fork("numbers-converted")) as session, pytest.raises(Contradiction) as raised:
        spelled_check(session)
    said = str(raised.value)
    assert raised.value.record == "OBJ-10", raised.value
    assert "takes `thoughtNumber` given as “1” and “2” as the numbers they spell" in said, said
    assert "takes `totalThoughts` given as “1” and “5” as the numbers they spell" in said, said
    assert "nextThoughtNeeded" not in said.split("; and ")[0], said


def test_the_reference_takes_none() -> None:
    with _session("reference") as session:
        spelled_check(session)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.one_of(st.sampled_from(["true", "false", "True", "0", "1"]), json_values).filter(
    lambda v: not isinstance(v, bool)))
def test_any_check_meeting_a_spelling_read_names_the_type_check(
    strings_read: ServerSession, value: JSON
) -> None:
    """Whichever check sends it, a non-boolean nextThoughtNeeded the fork reads as a boolean contradicts
    OBJ-10 in words naming the call and the boolean read; any other is refused as the original refuses it."""
    exchange = strings_read.call({**PLAIN, "nextThoughtNeeded": value})
    if value not in ("true", "false"):
        assert rejected(exchange) == GUARD_REFUSALS["nextThoughtNeeded"]
        return
    with pytest.raises(Contradiction) as raised:
        rejected(exchange)
    assert raised.value.record == "OBJ-10", raised.value
    assert (f'`nextThoughtNeeded: "{value}"` is accepted and read as the boolean {value} (the answer\'s '
            "nextThoughtNeeded), where the original type-checks nextThoughtNeeded and refuses this call "
            "(nextThoughtNeeded)") in str(raised.value), raised.value


def _answer(spec: str, arguments: dict[str, JSON]) -> dict[str, JSON]:
    with resolve_target(spec).wire(timeout=20) as driver:
        driver.initialize()
        return driver.call_tool("sequentialthinking", arguments).response


@pytest.mark.parametrize(("mode", "field", "value", "read"), [
    ("next-needed-strings", "nextThoughtNeeded", "true", "true"),
    ("next-needed-strings", "nextThoughtNeeded", "false", "false"),
    ("numbers-converted", "thoughtNumber", "2", "2"),
])
def test_the_pair_says_the_value_read(mode: str, field: str, value: str, read: str) -> None:
    """The one explainer's sentence of a refused-against-accepted pair (the run's headline, compare's) names
    the value sent and what it was read as, not only the original's refusal."""
    arguments: dict[str, JSON] = {**PLAIN, "totalThoughts": 3, field: value}
    said = explain(_answer("reference", arguments), _answer(_fork(mode), arguments), arguments)[0].said()
    assert said == (f"the original refuses this call — “{GUARD_REFUSALS[field]}” (isError) — and this server "
                    f"accepts it, reading \"{value}\" as {read}"), said
    assert len(said) <= HEADLINE_PAIR_CHARS, said  # the run's headline keeps the pair's sentence whole


def test_a_value_of_its_own_type_is_not_said_read() -> None:
    """A falsy value of the right type let through (typed-guards) is accepted as sent: no clause."""
    arguments: dict[str, JSON] = {**PLAIN, "thoughtNumber": 0}
    said = explain(_answer("reference", arguments), _answer(_fork("typed-guards"), arguments), arguments)[0]
    assert said.said().endswith("and this server accepts it"), said.said()
