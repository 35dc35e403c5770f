"""The SDK's own floor: a bare `mcp` low-level server on the SDK's stdio transport, one constant tool.

The benchmark compares the reference server with this: whatever the bare server costs per call is
the SDK's, not the reference's. With `--lean` it runs on the reference's own stdio framing and
without the SDK's default tracing middleware, as the reference does, so that the difference left
is the reference's tool logic alone.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOL = types.Tool(name="constant", description="Returns a constant result.", input_schema={"type": "object"})
RESULT = types.CallToolResult(content=[types.TextContent(type="text", text="constant")])


async def on_list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[TOOL])


async def on_call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    return RESULT


async def serve(lean: bool) -> None:
    server: Server[Any] = Server("bare", version="0", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    if lean:
        from reference_server.transport import stdio_transport

        server.middleware = []
        async with stdio_transport() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        return
    async with stdio_server() as (sdk_read_stream, sdk_write_stream):
        await server.run(sdk_read_stream, sdk_write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(serve, "--lean" in sys.argv[1:])
