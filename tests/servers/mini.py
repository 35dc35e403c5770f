"""A tiny, correct stdio MCP server loop; the misbehaving test servers change one thing about it."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

Message = dict[str, Any]

TOOL = {
    "name": "sequentialthinking",
    "description": "test double",
    "inputSchema": {"type": "object", "properties": {"thought": {"type": "string"}}},
}


def write(message: Message) -> None:
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()


def reply(message: Message, result: Message) -> None:
    write({"jsonrpc": "2.0", "id": message["id"], "result": result})


def answer_call(message: Message) -> None:
    reply(message, {"content": [{"type": "text", "text": "ok"}]})


BANNER = b"Sequential Thinking MCP Server running on stdio\n"
"""The original's start-up line on stderr, for a server standing as the original or one of its forks."""


def serve(
    on_call: Callable[[Message], None] = answer_call,
    *,
    tool: Message = TOOL,
    version: Callable[[str], str] = lambda offered: offered,
    banner: bytes = b"",
) -> None:
    """Answer initialize (with `version` of the one offered) and tools/list (`tool`) properly; hand tools/call
    to `on_call`. `banner` is written to stderr first, as the original's start-up line is: a reader awaiting
    a start-up's stderr (a replay's banner wait) has it at once instead of waiting out its bound."""
    if banner:
        sys.stderr.buffer.write(banner)
        sys.stderr.buffer.flush()
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue
        method = message.get("method")
        if method == "initialize":
            reply(
                message,
                {
                    "protocolVersion": version(message["params"]["protocolVersion"]),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "mini", "version": "0"},
                },
            )
        elif method == "tools/list":
            reply(message, {"tools": [tool]})
        elif method == "tools/call":
            on_call(message)
        else:
            error = {"code": -32601, "message": "Method not found"}
            write({"jsonrpc": "2.0", "id": message["id"], "error": error})


if __name__ == "__main__":
    serve()
