"""reference_server.server: tools/call and tools/list answered directly are the Server's handlers' answers,
byte for byte.

The runner answers tools/call with `call_tool_answer` (a dict) instead of the Server's `on_call_tool`
(models dumped by alias, set fields only): the two must give the same JSON text, key order included,
and leave the same state behind, call after call. Likewise tools/list with `list_tools_answer`, for any
tool a spec (or a fork's) describes.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

import mcp_types as types
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.server.lowlevel import Server
from pydantic import BaseModel

from reference_server.colour import Prefixes
from reference_server.server import build_server, call_tool_answer, list_tools_answer
from reference_server.thinking import SequentialThinkingServer
from reference_server.toolspec import ToolSpec, load_tool_spec

SPEC = load_tool_spec()
PLAIN = Prefixes("🔄 Revision", "🌿 Branch", "💭 Thought")

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 10), st.floats(allow_nan=False), st.text(max_size=12)
)
_fields = st.fixed_dictionaries(
    {},
    optional={
        "thought": st.one_of(st.text(max_size=30), _scalars),
        "thoughtNumber": st.one_of(st.integers(-2, 12), _scalars),
        "totalThoughts": st.one_of(st.integers(-2, 12), _scalars),
        "nextThoughtNeeded": st.one_of(st.booleans(), _scalars),
        "isRevision": _scalars,
        "revisesThought": _scalars,
        "branchFromThought": st.one_of(st.integers(0, 5), _scalars),
        "branchId": st.one_of(st.sampled_from(["a", "b", "__proto__", "toString"]), _scalars),
    },
)
_calls = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["sequentialthinking", "sequentialthinking", "other"])},
        optional={"arguments": _fields},
    ),
    min_size=1,
    max_size=8,
)


def _through_the_server_handler(
    server: Server[Any], params: dict[str, Any], method: str = "tools/call"
) -> dict[str, Any]:
    """The answer as `_OriginalRunner` made it before: the params model, the handler, the dump."""
    entry = server.get_request_handler(method)
    assert entry is not None
    fields = {key: params[key] for key in entry.params_type.model_fields if key in params}
    typed = entry.params_type.model_construct(**fields)
    result = asyncio.run(entry.handler(cast(Any, None), typed))
    assert isinstance(result, BaseModel)
    dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_unset=True)
    return dumped


def _frame(result: dict[str, Any]) -> str:
    """The answer's line as the transport writes it."""
    response = types.JSONRPCResponse(jsonrpc="2.0", id=1, result=result)
    return response.model_dump_json(by_alias=True, exclude_unset=True)


@settings(max_examples=60, deadline=None)
@given(_calls)
def test_the_direct_answer_is_the_handlers_answer_call_after_call(calls: list[dict[str, Any]]) -> None:
    written_direct: list[bytes] = []
    written_handler: list[bytes] = []
    direct = SequentialThinkingServer(PLAIN, written_direct.append)
    handler = SequentialThinkingServer(PLAIN, written_handler.append)
    server = build_server(handler, SPEC)
    for params in calls:
        assert _frame(call_tool_answer(direct, params)) == _frame(_through_the_server_handler(server, params))
    assert written_direct == written_handler
    assert len(direct.thought_history) == len(handler.thought_history)


def test_an_error_carries_is_error_after_content_and_a_success_leaves_it_out() -> None:
    thinking = SequentialThinkingServer(PLAIN, lambda data: None)
    good = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}
    assert list(call_tool_answer(thinking, {"name": "sequentialthinking", "arguments": good})) == ["content"]
    refused = call_tool_answer(thinking, {"name": "other"})
    expected = '{"content": [{"type": "text", "text": "Unknown tool: other"}], "isError": true}'
    assert json.dumps(refused) == expected


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
_specs = st.builds(
    ToolSpec,
    name=st.text(max_size=20),
    description=st.text(max_size=40),
    input_schema=st.dictionaries(st.text(max_size=8), _json, max_size=5).map(
        lambda properties: {"type": "object", **properties}
    ),
    provenance=st.just({}),
    license=st.just(""),
)


@settings(max_examples=60, deadline=None)
@given(_specs, st.one_of(st.none(), st.fixed_dictionaries({"cursor": st.text(max_size=5)})))
def test_the_direct_tool_list_is_the_handlers_answer(spec: ToolSpec, params: dict[str, Any] | None) -> None:
    server = build_server(SequentialThinkingServer(PLAIN, lambda data: None), spec)
    through = _through_the_server_handler(server, params or {}, "tools/list")
    direct = list_tools_answer(spec)
    assert _frame(direct) == _frame(through)
    direct["tools"][0]["inputSchema"]["type"] = "changed"
    assert list_tools_answer(spec) == through, "each answer is its own copy of the schema"
