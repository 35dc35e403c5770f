"""Checks that read one call in the light of another: a box written after its call was answered lands among
the next call's bytes (RTE-9's), a count that falls between two probes of the shared process (ABS-11's), a
server's own message where a response or silence was due (LOOP-A's), whichever check was reading."""

from __future__ import annotations

import json
import shlex
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from conformance.calls.strategies import Envelope
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers.wire import Exchange, call_arguments
from conformance.suite.answers import refused_as_invalid
from conformance.suite.contradiction import Contradiction, expect_no_own_line
from conformance.suite.jsvalues import expected_box
from conformance.suite.render_box import only_box
from conformance.suite.session import ServerSession
from conformance.targets.specs import resolve_target
from tests.servers import command, session_on


def _call(arguments: dict[str, JSON], request_id: int = 1) -> dict[str, JSON]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": TOOL, "arguments": arguments}}


def _exchange(
    arguments: dict[str, JSON], stderr: str, *, before: dict[str, JSON] | None = None, refused: bool = False
) -> Exchange:
    """A tools/call as the driver records it: accepted (OBJ-4's count in the answer) or refused."""
    status: dict[str, JSON] = (
        {"error": "Invalid thought: must be a string", "status": "failed"} if refused
        else {"thoughtNumber": arguments["thoughtNumber"], "branches": [], "thoughtHistoryLength": 2})
    result: dict[str, JSON] = {"content": [{"type": "text", "text": json.dumps(status)}]}
    if refused:
        result["isError"] = True
    return Exchange("tools/call", _call(arguments, 2), {"jsonrpc": "2.0", "id": 2, "result": result},
                    stderr.encode(), 0.0, 0.0, previous_call=None if before is None else _call(before))


FIRST = Envelope("the first thought", 1, 2, True).arguments()
SECOND = Envelope("the second thought", 2, 2, False).arguments()


def test_a_call_answered_with_its_own_box_passes() -> None:
    box = only_box(_exchange(SECOND, expected_box(SECOND), before=FIRST))
    assert "the second thought" in box.body


def test_a_box_of_the_call_before_is_rte9s() -> None:
    late = _exchange(SECOND, expected_box(FIRST), before=FIRST)
    with pytest.raises(Contradiction) as raised:
        only_box(late)
    assert raised.value.record == "RTE-9"
    assert "the call sent before it" in str(raised.value)


def test_a_box_showing_its_own_thought_otherwise_is_left_to_the_render_checks() -> None:
    """A fork that rewrites the thought (here upper-cased) shows no earlier call's thought: not late."""
    rewritten = expected_box(SECOND).replace("the second thought", "THE SECOND THOUGHT")
    box = only_box(_exchange(SECOND, rewritten, before=FIRST))
    assert "THE SECOND THOUGHT" in box.body


def test_an_accepted_call_without_a_box_is_rte9s_a_refusal_without_one_names_nothing() -> None:
    with pytest.raises(Contradiction) as raised:
        only_box(_exchange(SECOND, "", before=FIRST))
    assert raised.value.record == "RTE-9"
    with pytest.raises(AssertionError) as plain:
        only_box(_exchange(SECOND, "", before=FIRST, refused=True))
    assert not isinstance(plain.value, Contradiction)


_SINGLE_TO_DOUBLE = str.maketrans("─│┌┐├┤└┘", "═║╔╗╠╣╚╝")


SHORT = {**SECOND, "thought": "t"}


@pytest.mark.parametrize(("arguments", "stderr"), [
    pytest.param(SECOND, expected_box(SECOND).translate(_SINGLE_TO_DOUBLE), id="double-line box"),
    pytest.param(SECOND, json.dumps({"event": "thought", "thought": SECOND["thought"]}) + "\n",
                 id="JSON log line"),
    pytest.param(SHORT, json.dumps({"event": "thought", "thought": "t"}) + "\n", id="short thought, quoted"),
])
def test_a_thought_drawn_or_logged_in_another_form_is_cmp5s(arguments: dict[str, JSON], stderr: str) -> None:
    """The call's thought was rendered and written to stderr, in no box of CMP-5's form: CMP-5 departs,
    not RTE-9's "each accepted thought is rendered and written" (it was)."""
    with pytest.raises(Contradiction) as raised:
        only_box(_exchange(arguments, stderr, before=FIRST))
    assert raised.value.record == "CMP-5"


def test_stderr_bytes_alone_name_no_record_for_a_missing_box() -> None:
    with pytest.raises(AssertionError) as plain:
        only_box(b"")
    assert not isinstance(plain.value, Contradiction)


def test_call_arguments_reads_a_tools_call_only() -> None:
    assert call_arguments(_call(FIRST), TOOL) == FIRST
    assert call_arguments(_call(FIRST), "another_tool") == {}
    assert call_arguments({"jsonrpc": "2.0", "id": 1, "method": "ping"}) == {}
    assert call_arguments(b"{}") == {}
    assert call_arguments(None) == {}


@pytest.mark.parametrize("line", [
    b'{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "box"}}\n',
    b'{"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage", "params": {}}\n',
])
def test_a_message_of_the_servers_own_where_silence_was_due_is_loop_as(line: bytes) -> None:
    with pytest.raises(Contradiction) as raised:
        expect_no_own_line(line, "nothing was due")
    assert raised.value.record == "LOOP-A"


@pytest.mark.parametrize(
    "line", [None, b"not json\n", b"{not json either\n", b'{"jsonrpc": "2.0", "id": 1}\n']
)
def test_other_lines_where_silence_was_due_are_left_to_the_check(line: bytes | None) -> None:
    expect_no_own_line(line, "nothing was due")


def _session(*args: str) -> AbstractContextManager[ServerSession]:
    return session_on(resolve_target("cmd:" + shlex.join(command("forgetting", *args))))


def test_a_count_that_falls_between_probes_is_abs11s(tmp_path: Path) -> None:
    """A real process whose store is emptied between two probes (told to by a file the test creates, not by a
    timer a loaded machine can outrun): the probe after it answers a lower count."""
    mark = tmp_path / "forget"
    with _session("--forget-when", str(mark)) as session:
        session.probe()
        session.probe()
        mark.touch()
        with pytest.raises(Contradiction) as raised:
            session.probe()
        assert raised.value.record == "ABS-11"
        assert "thoughtHistoryLength 1" in str(raised.value)


def test_a_count_that_only_grows_passes(tmp_path: Path) -> None:
    """The same server, never told to forget: the count grows and no probe objects."""
    with _session("--forget-when", str(tmp_path / "never")) as session:
        counts = [session.probe().history_length, session.probe().history_length]
        assert counts == [1, 2]


@pytest.mark.parametrize(("text", "invalid"), [
    ("Error: Invalid branchId: must match [A-Za-z0-9_-]{1,64}", True),
    (json.dumps({"error": "Invalid thought: must be a string", "status": "failed"}), True),
    ("Invalid thoughtNumber: must be a number", True),
    ("MCP error -32602: Input validation error: Invalid arguments for tool sequentialthinking", True),
    ("Error: Cannot read properties of undefined (reading 'thought')", False),
    ("Unknown tool: sequential_thinking", False),
])
def test_a_refusal_is_judged_by_its_words_not_its_wrapping(text: str, invalid: bool) -> None:
    """A fork answering refusals as plain text ("Error: Invalid …") refuses as invalid all the same: a call
    the checks needed accepted then contradicts RTE-3, as it does when the refusal is the JSON error."""
    result: dict[str, JSON] = {"content": [{"type": "text", "text": text}], "isError": True}
    exchange = Exchange("tools/call", _call(SECOND, 2), {"jsonrpc": "2.0", "id": 2, "result": result},
                        b"", 0.0, 0.0)
    assert refused_as_invalid(exchange) is invalid
