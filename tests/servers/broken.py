"""A server that answers initialize and tools/list (so the preflight passes) and then fails every tools/call.

usage: broken.py MODE
  crash    exits with status 1 on every tools/call
  hang     never answers a tools/call (and keeps reading)
  garbage  answers every tools/call with a line that is not JSON
  reject   answers every tools/call with isError and a JSON error text
  same     answers every tools/call with the same accepted status, whatever was sent
"""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "crash"
TOOL = {
    "name": "sequentialthinking",
    "description": "A broken sequential thinking tool.",
    "inputSchema": {"type": "object", "properties": {"thought": {"type": "string"}}, "required": ["thought"]},
}
SAME = {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False, "branches": [],
        "thoughtHistoryLength": 1}


def send(message: object) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(request_id: object, value: str, *, is_error: bool = False) -> None:
    result: dict[str, object] = {"content": [{"type": "text", "text": value}]}
    if is_error:
        result["isError"] = True
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def call(request_id: object) -> None:
    if MODE == "crash":
        sys.stderr.write("broken: crashing on tools/call\n")
        sys.exit(1)
    if MODE == "hang":
        return
    if MODE == "garbage":
        sys.stdout.write("\x00garbage \xff{not json\n")
        sys.stdout.flush()
        return
    if MODE == "reject":
        text(request_id, json.dumps({"error": "rejected", "status": "failed"}, indent=2), is_error=True)
        return
    text(request_id, json.dumps(SAME, indent=2))


def main() -> None:
    sys.stderr.write(f"broken server ({MODE}) running on stdio\n")
    sys.stderr.flush()
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message:
            continue
        request_id, method = message["id"], message.get("method")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": request_id, "result": {
                "protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                "serverInfo": {"name": f"broken-{MODE}", "version": "0"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": [TOOL]}})
        elif method == "tools/call":
            call(request_id)
        else:
            error = {"code": -32601, "message": "Method not found"}
            send({"jsonrpc": "2.0", "id": request_id, "error": error})


if __name__ == "__main__":
    main()
