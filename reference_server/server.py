"""The original's tool surface on the official `mcp` low-level Server, served over stdio.

tools/list answers with the captured tool; tools/call runs `SequentialThinkingServer` on the
arguments exactly as parsed (nothing validates them against the input schema; `arguments` missing
arrives as None, which the original reads as undefined). Requests are answered as SDK 0.5.0 answers
them (`_OriginalRunner`, `sdk050.py`): the same fields in every answer, errors included.
"""

from __future__ import annotations

import copy
import logging
import signal
import warnings
from collections.abc import Callable, Mapping
from functools import cache, partial
from typing import Any, Final

import anyio
import mcp_types as types
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.runner import ServerRunner, aclose_shielded
from mcp.shared.dispatcher import DispatchContext
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.transport_context import TransportContext
from mcp_types import INTERNAL_ERROR, METHOD_NOT_FOUND
from pydantic import BaseModel

from reference_server import sdk050
from reference_server.colour import ChalkLevelError, Prefixes, detect_prefixes
from reference_server.thinking import SequentialThinkingServer, unknown_tool_text
from reference_server.toolspec import BANNER, SERVER_NAME, SERVER_VERSION, TOOL_NAME, ToolSpec, load_tool_spec
from reference_server.transport import ReadStream, WriteStream, stdio_transport, write_all_blocking


def call_tool_text(
    thinking: SequentialThinkingServer, name: str, arguments: Mapping[str, Any] | None
) -> tuple[str, bool]:
    """The original's CallTool handler: (content[0].text, isError) for a call to the tool `name`."""
    if name == TOOL_NAME:
        return thinking.process_thought(arguments)
    return unknown_tool_text(name), True


def call_tool_answer(thinking: SequentialThinkingServer, params: Mapping[str, Any]) -> dict[str, Any]:
    """The result `on_call_tool` returns as the runner dumps it (by alias, set fields only, in field order:
    content then isError), built as a dict: three `model_construct`s and a dump were about a third of a
    call's own CPU. `tests/fast/test_reference_answers.py` holds the two equal."""
    text, is_error = call_tool_text(thinking, params["name"], params.get("arguments"))
    content = [{"type": "text", "text": text}]
    if is_error:
        return {"content": content, "isError": True}
    return {"content": content}


def list_tools_answer(spec: ToolSpec) -> dict[str, Any]:
    """The result `on_list_tools` returns as the runner dumps it (by alias, set fields only, in field order:
    name, description, inputSchema), built as a dict: building the Tool and ListToolsResult models cost the
    start more than anything else it does after its imports. `tests/fast/test_reference_answers.py` holds
    the two equal."""
    schema = copy.deepcopy(spec.input_schema)
    return {"tools": [{"name": spec.name, "description": spec.description, "inputSchema": schema}]}


def answered_at_once(
    call_tool: Callable[[Mapping[str, Any]], dict[str, Any]], method: str, params: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """What `_OriginalRunner` returns for a tools/call zod accepts, for the transport to write at once
    (`stdio_transport`'s `answer_now`); None for every other request, left to the SDK's dispatcher (a
    refusal's error, initialize, the inline and cancel paths)."""
    if method != "tools/call" or params is None or sdk050.request_issues(method, params):
        return None
    return call_tool(params)


def build_server(thinking: SequentialThinkingServer, spec: ToolSpec) -> Server[Any]:
    """A low-level Server whose two handlers are the original's ListTools and CallTool handlers (the tool's
    models are built when the handler first runs: `serve`'s runner answers from `list_tools_answer`)."""

    @cache
    def listed() -> types.ListToolsResult:
        tool = types.Tool(name=spec.name, description=spec.description, input_schema=spec.input_schema)
        return types.ListToolsResult(tools=[tool])

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listed()

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        text, is_error = call_tool_text(thinking, params.name, params.arguments)
        # Both fields are of known-valid types. `isError` is set only when true: the original's handler
        # leaves it out of a success, and the runner dumps only the fields a handler set.
        content = types.TextContent.model_construct(type="text", text=text)
        if is_error:
            return types.CallToolResult.model_construct(content=[content], is_error=True)
        return types.CallToolResult.model_construct(content=[content])

    server: Server[Any] = Server(
        SERVER_NAME, version=SERVER_VERSION, on_list_tools=on_list_tools, on_call_tool=on_call_tool
    )
    # The only default middleware is the SDK's OpenTelemetry span per message, documented as the one to
    # drop to opt out; the original traces nothing, and it costs a fifth of each call.
    server.middleware = []
    return server


ORIGINAL_PROTOCOL_VERSION: Final = sdk050.LATEST_PROTOCOL_VERSION
"""SDK 0.5.0's latest revision: its answer to `initialize` unless the client offers 2024-10-07."""

INITIALIZE_CAPABILITIES: Final[dict[str, Any]] = {"tools": {}}
"""What the original passes to `new Server(...)` and answers verbatim (no `listChanged` key)."""


class _OriginalRunner(ServerRunner[Any]):
    """The SDK's per-connection kernel answering as SDK 0.5.0's `Protocol` answers.

    The SDK's own request path validates with pydantic (-32602), knows every spec method, adds
    `data: <method>` to -32601 and shapes results through the revision's result model (`isError:
    false`, `listChanged: false`). SDK 0.5.0 has four handlers; any other method is -32601 with no
    data, a handled request that fails its zod schema is -32603 with zod's issue list, and a result is
    sent as the handler returned it. The handlers themselves stay the Server's, except that a runner given
    `call_tool` answers tools/call with it directly (the same answer as the Server's handler, without the
    request context and the params and result models: `serve` passes `call_tool_answer`), and one given
    `list_tools` tools/list (`list_tools_answer`).
    """

    call_tool: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    list_tools: Callable[[], dict[str, Any]] | None = None

    async def _on_request(
        self, dctx: DispatchContext[TransportContext], method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        if method not in sdk050.HANDLED_METHODS:
            raise MCPError(code=METHOD_NOT_FOUND, message="Method not found")
        issues = sdk050.request_issues(method, params)
        if issues:
            raise MCPError(code=INTERNAL_ERROR, message=sdk050.zod_error_message(issues))
        if method == "initialize":
            assert params is not None
            return {
                "protocolVersion": sdk050.negotiated_version(params),
                "capabilities": INITIALIZE_CAPABILITIES,
                "serverInfo": {"name": SERVER_NAME, "version": SERVER_VERSION},
            }
        if method == "ping":
            return {}
        if method == "tools/call" and self.call_tool is not None:
            assert params is not None
            return self.call_tool(params)
        if method == "tools/list" and self.list_tools is not None:
            return self.list_tools()
        entry = self.server.get_request_handler(method)
        if entry is None:  # pragma: no cover - build_server registers both tool methods
            raise MCPError(code=METHOD_NOT_FOUND, message="Method not found")
        ctx = self._make_context(dctx, method, params, None, self.connection.protocol_version)
        # zod has accepted the params; the handlers read `name`, `arguments` and `cursor` only, so the
        # params model is built without a second, stricter (pydantic) validation.
        typed = entry.params_type.model_construct(**_fields(entry.params_type.model_fields, params))
        result = await entry.handler(ctx, typed)
        assert isinstance(result, BaseModel)
        dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_unset=True)
        return dumped

    async def _on_notify(
        self, dctx: DispatchContext[TransportContext], method: str, params: Mapping[str, Any] | None
    ) -> None:
        """SDK 0.5.0 drops a notification no handler takes, unparsed. The original's two (initialized,
        cancelled) change nothing a client sees here: the connection is open from its first frame and a
        cancel is the transport's. Only a notification the Server has a handler for takes the SDK's path,
        whose revision models (`startup.REVISION_SURFACES`) are then imported."""
        if self.server.get_notification_handler(method) is not None:
            await super()._on_notify(dctx, method, params)


def _fields(fields: Mapping[str, object], params: Mapping[str, Any] | None) -> dict[str, Any]:
    """The params under the model's fields (the fields the handlers read are named as on the wire)."""
    return {} if params is None else {key: params[key] for key in fields if key in params}


async def serve_as_original(
    server: Server[Any],
    read_stream: ReadStream,
    write_stream: WriteStream,
    call_tool: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None,
    list_tools: Callable[[], dict[str, Any]] | None = None,
) -> None:
    """One connection served as SDK 0.5.0 serves it, whichever revision the client speaks.

    `Server.run` serves two eras (a first request carrying the 2026-07-28 `_meta` envelope opens a
    stateless connection, `server/discover` answers) and refuses requests before `initialize`. The
    original knows one revision: the envelope is `_meta` like any other, `server/discover` is an unknown
    method (-32601), `initialize` answers 2024-11-05 to every offer, and a request is served whether or
    not `initialize` came first. So the connection is the SDK's handshake loop, open from its first frame.
    """
    try:
        async with server.lifespan(server) as lifespan_state:
            dispatcher: JSONRPCDispatcher[Any] = JSONRPCDispatcher(
                read_stream, write_stream, inline_methods=frozenset({"initialize"})
            )
            connection = Connection.for_loop(dispatcher, protocol_version_hint=ORIGINAL_PROTOCOL_VERSION)
            connection.initialized.set()
            # No init_options: the SDK builds them (its capability models) for its own initialize answer only,
            # and `_OriginalRunner` answers initialize itself.
            runner = _OriginalRunner(server, connection, lifespan_state)
            runner.call_tool, runner.list_tools = call_tool, list_tools
            try:
                await dispatcher.run(runner.on_request, runner.on_notify)
            finally:
                await aclose_shielded(connection)
    finally:
        await write_stream.aclose()


def silence_python_diagnostics() -> None:
    """Keep stderr to what the original writes: no logging last-resort output, no warnings, and no
    KeyboardInterrupt traceback: like node with no handler, SIGINT ends the process by that signal."""
    logging.getLogger().addHandler(logging.NullHandler())
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGINT, signal.SIG_DFL)


async def serve(
    prefixes: Prefixes | None = None, stdin_fd: int = 0, stdout_fd: int = 1, stderr_fd: int = 2
) -> None:
    """Serve until stdin closes; the banner goes out once the transport listens, as in runServer()."""
    spec = load_tool_spec()
    write: Callable[[bytes], None] = partial(write_all_blocking, stderr_fd)
    thinking = SequentialThinkingServer(prefixes if prefixes is not None else detect_prefixes(), write)
    server = build_server(thinking, spec)
    call_tool = partial(call_tool_answer, thinking)
    answer_now = partial(answered_at_once, call_tool)
    async with stdio_transport(stdin_fd, stdout_fd, answer_now) as (read_stream, write_stream):
        write(BANNER)
        list_tools = partial(list_tools_answer, spec)
        await serve_as_original(server, read_stream, write_stream, call_tool, list_tools)


def run() -> int:
    """Serve on stdio; the exit status is the original's (1 when chalk refuses to load)."""
    silence_python_diagnostics()
    try:
        prefixes = detect_prefixes()
    except ChalkLevelError as error:
        write_all_blocking(2, f"Error: {error.message}\n".encode())
        return 1
    anyio.run(serve, prefixes)
    return 0
