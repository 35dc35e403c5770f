"""A stdio server that is wrong in one chosen way, for the CLI's end-to-end tests.

usage: fake.py MODE
  exit      exits with status 3 at start, after a word on stderr
  no-tool   a clean MCP server whose only tool is not `sequentialthinking`
  garbage   writes non-JSON-RPC text on stdout in answer to initialize
  hostile   offers the tool; every string it answers is `<script>alert(1)</script>` (plus control bytes)
"""

from __future__ import annotations

import json
import sys

HOSTILE = "<script>alert(1)</script>"
MODE = sys.argv[1] if len(sys.argv) > 1 else "hostile"


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(request_id: object, value: dict[str, object]) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": value})


def tool(name: str) -> dict[str, object]:
    return {
        "name": name,
        "description": HOSTILE,
        "inputSchema": {"type": "object", "properties": {"thought": {"type": "string"}}},
    }


def answer(message: dict[str, object]) -> None:
    method = message.get("method")
    request_id = message.get("id")
    if request_id is None:
        return
    if method == "initialize":
        if MODE == "garbage":
            sys.stdout.write("Hello! Starting up... \x1b[31mnot JSON\x1b[0m\n")
            sys.stdout.flush()
            return
        info = {"name": HOSTILE, "version": "\x1b]0;pwned\x07" + HOSTILE}
        result(
            request_id, {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}}, "serverInfo": info}
        )
    elif method == "tools/list":
        result(request_id, {"tools": [tool("something_else" if MODE == "no-tool" else "sequentialthinking")]})
    elif method == "tools/call":
        result(request_id, {"content": [{"type": "text", "text": HOSTILE}]})
    else:
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": HOSTILE}})


def main() -> None:
    if MODE == "exit":
        sys.stderr.write("fake: refusing to start\n")
        sys.exit(3)
    sys.stderr.write(f"\x1b[2J\x1b[31m{HOSTILE}\x1b[0m fake server up\n")
    sys.stderr.flush()
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            answer(message)


if __name__ == "__main__":
    main()
