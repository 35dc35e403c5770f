"""mini, but initialize answers by a table given as JSON on the command line: offered version -> answered
version, "*" for any other offer (the version-negotiation checks' real server, SPEC-1)."""

from __future__ import annotations

import json
import sys

from mini import TOOL, Message, answer_call, reply, write


def main(table: dict[str, str]) -> None:
    for line in sys.stdin.buffer:
        message: Message = json.loads(line)
        if "id" not in message:
            continue
        method = message.get("method")
        if method == "initialize":
            offered = message["params"]["protocolVersion"]
            reply(message, {"protocolVersion": table.get(offered, table["*"]), "capabilities": {"tools": {}},
                            "serverInfo": {"name": "negotiates", "version": "0"}})
        elif method == "tools/list":
            reply(message, {"tools": [TOOL]})
        elif method == "tools/call":
            answer_call(message)
        elif method == "ping":
            reply(message, {})
        else:
            error = {"code": -32601, "message": "Method not found"}
            write({"jsonrpc": "2.0", "id": message["id"], "error": error})


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
