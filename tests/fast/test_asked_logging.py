"""A server declaring `logging` is asked for debug logging before a thought, and what it sends of its own then
is seen (issue 42: held-out-multi-13's fork-client-protocol sent each thought as a debug log message, which no
check ever asked for). Real processes: the reference with the change (`debug-logged`), and with a `prompts`
capability only, which is asked nothing."""

from __future__ import annotations

import shlex
import sys

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.suite.asked_logging import asked_for_debug, carries, declares_logging
from conformance.suite.rawproc import RawServer
from conformance.targets.specs import resolve_target
from tests.cli import REPO


def _raw(change: str) -> RawServer:
    fork = REPO / "tests" / "servers" / "reference_fork.py"
    spec = "cmd:" + shlex.join([sys.executable, str(fork), change])
    return RawServer(resolve_target(spec), sandbox={}, timeout=60)


def _thought(text: str) -> dict[str, JSON]:
    return {"thought": text, "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": True}


def test_a_server_logging_thoughts_at_debug_is_seen_sending_them() -> None:
    """After setLevel "debug" the server sends the thought as notifications/message before its answer: the
    message is kept, and the call still answered."""
    with _raw("debug-logged") as raw:
        asked = asked_for_debug(raw, _thought("a thought the log carries"))
    assert asked.declared
    assert isinstance(asked.level_answer, dict) and asked.level_answer.get("result") == {}, asked.level_answer
    assert isinstance(asked.call_answer, dict) and "result" in asked.call_answer, asked.call_answer
    assert [m.get("method") for m in asked.own] == ["notifications/message"], asked.own
    assert carries(asked.own[0], "a thought the log carries")


def test_a_server_declaring_no_logging_is_asked_nothing() -> None:
    """A capability other than logging (`prompts`) is no reason to ask: nothing is sent, nothing kept."""
    with _raw("prompts-declared") as raw:
        asked = asked_for_debug(raw, _thought("never sent"))
        assert not raw.stderr_now(wait=0.2).count(b"never sent")
    assert not asked.declared and asked.own == [] and asked.call_answer is None


@given(capabilities=st.dictionaries(st.sampled_from(["tools", "prompts", "resources", "logging",
                                                     "experimental"]), st.just({})))
def test_logging_is_declared_only_by_its_own_key(capabilities: dict[str, JSON]) -> None:
    answer: dict[str, JSON] = {"jsonrpc": "2.0", "id": 1, "result": {"capabilities": dict(capabilities)}}
    assert declares_logging(answer) is ("logging" in capabilities)
