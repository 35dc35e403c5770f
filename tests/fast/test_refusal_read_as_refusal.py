"""A check that reads the store's count from an answer that was a refusal says the call was refused, in the
refusal's words: never "no key 'thoughtHistoryLength' where the check read one", which pointed a maintainer
at a renamed field where a real fork (bartoszkula-ts, reports/third-party/AUDIT-round9.md) refused every call
after its store was poisoned by one branchId "__proto__" (17 record lines and RTE-3's headline)."""

from __future__ import annotations

import json
import shlex
from contextlib import AbstractContextManager

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.store import state_of
from conformance.core.failure_text import readable, spoken
from conformance.core.jsontypes import JSON
from conformance.drivers.wire import Exchange
from conformance.suite.session import ServerSession
from conformance.targets.specs import resolve_target
from tests.servers import command, session_on

PUSH = "branches[thought.branchId].push is not a function"
SPLIT = "Cannot read properties of undefined (reading 'split')"
"""The words tests/servers/poisoned.py refuses with (a server file runs as a script, not imported)."""

NODE = "conformance/suite/test_store.py::test_store_machine[cmd:x]"


def _session(*args: str) -> AbstractContextManager[ServerSession]:
    return session_on(resolve_target("cmd:" + shlex.join(command("poisoned", *args))))


def _line(raised: pytest.ExceptionInfo[AssertionError]) -> str:
    """The record line the gate writes of what the check raised."""
    return spoken(readable(f"AssertionError: {raised.value}"), NODE)


def test_a_probe_after_the_store_was_poisoned_says_the_refusal() -> None:
    with _session() as session:
        assert session.probe().history_length == 1
        poison: dict[str, JSON] = {"thought": "x", "thoughtNumber": 2, "totalThoughts": 2,
                                   "nextThoughtNeeded": True, "branchId": "__proto__", "branchFromThought": 1}
        assert session.call(poison).is_error
        with pytest.raises(AssertionError) as raised:
            session.probe()
        line = _line(raised)
        assert line == f"call was rejected: isError “{PUSH}”"
        assert "no key" not in line


def test_a_protocol_error_where_a_count_was_read_says_its_code_and_words() -> None:
    with _session("--crash-before") as session:
        call: dict[str, JSON] = {"thought": 5, "thoughtNumber": 1, "totalThoughts": 1,
                                 "nextThoughtNeeded": True}
        with pytest.raises(AssertionError) as raised:
            state_of(session.call(call))
        assert _line(raised) == f"call was rejected: JSON-RPC error -32603 “{SPLIT}”"


def test_an_accepted_answer_is_still_read() -> None:
    with _session() as session:
        assert [session.probe().history_length for _ in range(3)] == [1, 2, 3]


def _refused(words: str, protocol: bool) -> Exchange:
    response: dict[str, JSON] = (
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": words}} if protocol else
        {"jsonrpc": "2.0", "id": 1, "result": {"isError": True, "content": [
            {"type": "text", "text": json.dumps({"error": words, "status": "failed"})}]}})
    return Exchange("tools/call", {}, response, b"", 0.0, 0.0)


@given(words=st.text(st.characters(categories=("L", "N", "P", "Zs")), min_size=1, max_size=80).filter(
    str.strip), protocol=st.booleans())
def test_any_refusal_is_said_with_its_kind_and_words(words: str, protocol: bool) -> None:
    with pytest.raises(AssertionError) as raised:
        state_of(_refused(words, protocol))
    said = str(raised.value)
    assert said.startswith("call was rejected: " + ("JSON-RPC error -32603" if protocol else "isError"))
    assert words in said
    assert "no key" not in readable(f"AssertionError: {said}")
