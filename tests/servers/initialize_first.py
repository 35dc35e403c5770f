"""Serves nothing before initialize: a request before it is answered with an error whose id is null (a port
whose SDK refuses requests on a session not yet initialized); after it, tools/list and a counting tools/call.
Writes the original's banner to stderr as it starts. --serves-early: answers tools/list before initialize too
(as the original's SDK does)."""

from __future__ import annotations

import json
import sys

from mini import Message, reply, write

TOOL_STATUS = {"thoughtNumber": 1, "thoughtHistoryLength": 1, "branches": [], "totalThoughts": 1,
               "nextThoughtNeeded": False}


def main() -> None:
    sys.stderr.write("Sequential Thinking MCP Server running on stdio\n")
    sys.stderr.flush()
    initialized = "--serves-early" in sys.argv
    count = 0
    for line in sys.stdin.buffer:
        message: Message = json.loads(line)
        if "id" not in message:
            continue
        method = message.get("method")
        if method == "initialize":
            initialized = True
            reply(message, {"protocolVersion": message["params"]["protocolVersion"],
                            "capabilities": {"tools": {}}, "serverInfo": {"name": "first", "version": "0"}})
        elif not initialized:
            write({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "not initialized"}})
        elif method == "tools/list":
            reply(message, {"tools": [{"name": "sequentialthinking", "description": "test double",
                                       "inputSchema": {"type": "object"}}]})
        elif method == "tools/call":
            count += 1
            status = {**TOOL_STATUS, "thoughtHistoryLength": count}
            reply(message, {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]})
        else:
            write({"jsonrpc": "2.0", "id": message["id"],
                   "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()
