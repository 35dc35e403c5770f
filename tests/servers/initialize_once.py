"""Refuses a second initialize on the same connection (a server that takes the handshake once only); serves
as the tiny correct server otherwise."""

from __future__ import annotations

import json
import sys

from mini import reply, write

if __name__ == "__main__":
    initialized = False
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if not isinstance(message, dict) or "id" not in message:
            continue
        method = message.get("method")
        if method == "initialize" and initialized:
            write({"jsonrpc": "2.0", "id": message["id"],
                   "error": {"code": -32600, "message": "already initialized"}})
        elif method == "initialize":
            initialized = True
            reply(message, {"protocolVersion": message["params"]["protocolVersion"],
                            "capabilities": {"tools": {}}, "serverInfo": {"name": "once", "version": "0"}})
        elif method == "tools/list":
            reply(message, {"tools": [{"name": "sequentialthinking", "inputSchema": {"type": "object"}}]})
        elif method == "tools/call":
            reply(message, {"content": [{"type": "text", "text": "ok"}]})
        else:
            refused = {"code": -32601, "message": "Method not found"}
            write({"jsonrpc": "2.0", "id": message["id"], "error": refused})
