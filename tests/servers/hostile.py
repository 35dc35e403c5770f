"""A server whose every answer follows a plan drawn by hypothesis (tests/e2e/test_hostile_server.py).

usage: hostile.py PLAN.json. The plan says how to treat the handshake (initialize, tools/list) and then,
request by request (cycling), what to do instead of or around a proper answer: random frames, wrong or
duplicate ids, partial and huge lines, stray notifications and requests, invalid UTF-8, pauses, exits.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

OUT = sys.stdout.buffer
TOOL = {"name": "sequentialthinking", "description": "hostile",
        "inputSchema": {"type": "object", "properties": {"thought": {"type": "string"}}}}
STATUS = {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False, "branches": [],
          "thoughtHistoryLength": 1}


def line(data: bytes) -> None:
    OUT.write(data + b"\n")
    OUT.flush()


def send(message: object) -> None:
    line(json.dumps(message).encode())


def proper(request: dict[str, Any]) -> dict[str, Any]:
    method, request_id = request.get("method"), request.get("id")
    if method == "initialize":
        result: object = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                          "serverInfo": {"name": "hostile", "version": "0"}}
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": json.dumps(STATUS, indent=2)}]}
    else:
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def act(action: dict[str, Any], request: dict[str, Any]) -> None:
    """Answer `request` the way `action` says."""
    do = action["do"]
    answer = proper(request)
    if do == "answer":
        send(answer)
    elif do == "frame":
        send(action["data"])
    elif do == "wrong_id":
        send({**answer, "id": (request.get("id") or 0) + 1000 if isinstance(request.get("id"), int) else "x"})
    elif do == "duplicate":
        send(answer)
        send(answer)
    elif do == "partial":
        data = json.dumps(answer).encode()
        half = len(data) // 2
        OUT.write(data[:half])
        OUT.flush()
        time.sleep(action.get("seconds", 0.2))
        line(data[half:])
    elif do == "huge":
        send({**answer, "result": {"content": [{"type": "text", "text": "x" * action["size"]}]}})
    elif do == "notify":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
        send(answer)
    elif do == "request":
        send({"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list"})
        send(answer)
    elif do == "bad_utf8":
        line(b'{"jsonrpc": "2.0", "id": ' + str(request.get("id")).encode() + b', "result": "\xff\xfe\xc0"}')
    elif do == "pause":
        time.sleep(action["seconds"])
        send(answer)
    elif do == "exit":
        OUT.flush()
        os._exit(action["code"])
    elif do == "silent":
        pass


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        plan = json.load(handle)
    sys.stderr.write("hostile server running on stdio\n")
    sys.stderr.flush()
    handshake: dict[str, Any] = plan["handshake"]
    actions: list[dict[str, Any]] = plan["actions"]
    served = 0
    for raw in sys.stdin.buffer:
        try:
            request = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(request, dict) or "id" not in request:
            continue
        if request.get("method") in ("initialize", "tools/list"):
            act(handshake, request)
            continue
        act(actions[served % len(actions)], request)
        served += 1


if __name__ == "__main__":
    main()
