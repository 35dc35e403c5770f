"""The original's tool surface on the official `mcp` low-level Server, served over stdio.

tools/list answers with the captured tool; tools/call runs `SequentialThinkingServer` on the
arguments exactly as parsed (the SDK does not validate them against the input schema on stdio,
and `arguments` missing or null both arrive as None, which the original reads as undefined).
"""

from __future__ import annotations

import logging
import signal
import warnings
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Final

import anyio
import mcp_types as types
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.runner import ServerRunner, aclose_shielded
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

from reference_server.colour import ChalkLevelError, Prefixes, detect_prefixes
from reference_server.thinking import SequentialThinkingServer, unknown_tool_text
from reference_server.toolspec import BANNER, SERVER_NAME, SERVER_VERSION, TOOL_NAME, ToolSpec, load_tool_spec
from reference_server.transport import ReadStream, WriteStream, stdio_transport, write_all_blocking


def build_server(thinking: SequentialThinkingServer, spec: ToolSpec) -> Server[Any]:
    """A low-level Server whose two handlers are the original's ListTools and CallTool handlers."""
    listed = types.ListToolsResult(
        tools=[types.Tool(name=spec.name, description=spec.description, input_schema=spec.input_schema)]
    )

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listed

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name == TOOL_NAME:
            text, is_error = thinking.process_thought(params.arguments)
        else:
            text, is_error = unknown_tool_text(params.name), True
        # Both fields are of known-valid types, and the SDK validates the dumped result against the
        # protocol's own shape before it is sent; validating the model here too would be a second pass.
        content = types.TextContent.model_construct(type="text", text=text)
        return types.CallToolResult.model_construct(content=[content], is_error=is_error)

    server: Server[Any] = Server(
        SERVER_NAME, version=SERVER_VERSION, on_list_tools=on_list_tools, on_call_tool=on_call_tool
    )
    # The only default middleware is the SDK's OpenTelemetry span per message, documented as the one to
    # drop to opt out; the original traces nothing, and it costs a fifth of each call.
    server.middleware = []
    return server


ORIGINAL_PROTOCOL_VERSION: Final = "2024-11-05"
"""The one revision SDK 0.5.0 speaks: its answer to `initialize` whatever version the client offers."""


class _OriginalRunner(ServerRunner[Any]):
    """The SDK's per-connection kernel with SDK 0.5.0's negotiation: it always settles on 2024-11-05."""

    @staticmethod
    def _negotiate_initialize(params: Mapping[str, Any] | None) -> tuple[types.InitializeRequestParams, str]:
        init, _ = ServerRunner._negotiate_initialize(params)
        return init, ORIGINAL_PROTOCOL_VERSION


async def serve_as_original(server: Server[Any], read_stream: ReadStream, write_stream: WriteStream) -> None:
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
            runner = _OriginalRunner(
                server, connection, lifespan_state, init_options=server.create_initialization_options()
            )
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
    async with stdio_transport(stdin_fd, stdout_fd) as (read_stream, write_stream):
        write(BANNER)
        await serve_as_original(server, read_stream, write_stream)


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
