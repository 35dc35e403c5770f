"""A count's change is never said alone: the call it moved on is said with it, arguments the original does not
declare named first (held-out-multi-17's fork-scoped-sessions: "from 1680 to 2", its `sessionId` unsaid)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.strategies import Envelope
from conformance.core.jsontypes import JSON
from conformance.core.protocol import ARGUMENT_NAMES, TOOL
from conformance.drivers.wire import Exchange
from conformance.suite import test_store
from conformance.suite.answers import expect_count, expect_one_more
from conformance.suite.contradiction import Contradiction
from conformance.suite.session import ServerSession
from tests.servers import fork_session

_UNDECLARED = st.text(st.characters(codec="ascii", categories=["L"]), min_size=1, max_size=12).filter(
    lambda name: name not in ARGUMENT_NAMES)


def _sent(arguments: dict[str, JSON]) -> Exchange:
    request: dict[str, JSON] = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                "params": {"name": TOOL, "arguments": arguments}}
    answer: dict[str, JSON] = {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}
    return Exchange("tools/call", request, answer, b"", 0.0, 0.0)


@given(before=st.integers(0, 10**6), after=st.integers(0, 10**6),
       extra=st.dictionaries(_UNDECLARED, st.text(max_size=20), min_size=1, max_size=4))
def test_a_count_moved_names_the_undeclared_arguments_of_its_call(
    before: int, after: int, extra: dict[str, str]
) -> None:
    """Whatever the two counts, the line says the count, both numbers and each undeclared argument sent."""
    if after == before + 1:
        after += 1
    call = _sent({**Envelope("another conversation", 1, 2, True).arguments(), **extra})
    with pytest.raises(Contradiction) as raised:
        expect_one_more(before, after, "the answer", call=call)
    line = str(raised.value)
    assert "thoughtHistoryLength" in line and str(before) in line
    moved = f"at {before}," if after == before else f"from {before} to {after}"
    assert line.index(moved) < line.index("`"), "the count first, then the call"
    assert all(f"`{key}`" in line for key in extra), line
    assert "the original does not declare" in line


@given(envelope=st.builds(Envelope, st.text(min_size=1, max_size=20), st.integers(1, 9), st.integers(1, 9),
                          st.booleans()))
def test_a_count_moved_on_declared_arguments_quotes_the_call(envelope: Envelope) -> None:
    with pytest.raises(Contradiction) as raised:
        expect_one_more(4, 9, "the answer", call=_sent(envelope.arguments()))
    assert '"thoughtNumber": ' + str(envelope.thought_number) in str(raised.value)


def test_a_count_against_the_calls_says_the_call_it_was_given() -> None:
    call = _sent({**Envelope("t", 1, 1, True).arguments(), "sessionId": "probe-session-1"})
    with pytest.raises(Contradiction) as raised:
        expect_count(2, 1681, "thoughtHistoryLength is 2 after an accepted call, not 1681", call=call)
    assert '`sessionId`, "probe-session-1" (an argument the original does not declare)' in str(raised.value)


@pytest.fixture
def scoped() -> Iterator[ServerSession]:
    with fork_session("session-scoped") as session:
        yield session


def test_a_store_scoped_by_session_says_the_session_argument(scoped: ServerSession) -> None:
    """ABS-11's check against a fork counting a `sessionId`'s calls apart: OBJ-2's line names the argument."""
    with pytest.raises(Contradiction) as raised:
        test_store.test_nothing_resets_the_store(scoped)
    assert raised.value.record == "OBJ-2", raised.value
    said = str(raised.value)
    assert "took thoughtHistoryLength from" in said.partition("sessionId")[0], said
    assert 'on a call carrying `sessionId`, `session_id`, `session`, `conversationId` and 8 more, each ' \
        '"conformance-scope-2" (arguments the original does not declare)' in said, said
