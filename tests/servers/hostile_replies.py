"""The small correct server (mini.py) with one of issue 45's hostile replies, for the drivers' fast tests
(tests/servers/hostile_output.py makes the same cases of the reference, for whole runs).

usage: hostile_replies.py CASE
  batch-garbage   a batch (a line that is a JSON array) is answered with a line that is not JSON;
  batch-deep      a batch is answered with an array nested 200,000 deep;
  deep-text       every tools/call answer's text is an array nested 100,000 deep;
  batch-chatter   after a batch, notifications without end, and no answer to anything again;
  many-tools      tools/list lists 99,999 other tools before this one (about 7.7 MB).
"""

from __future__ import annotations

import json
import sys

from mini import TOOL, Message, reply, write

CASES = ("batch-garbage", "batch-deep", "deep-text", "batch-chatter", "many-tools")
STATUS = {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False, "branches": [],
          "thoughtHistoryLength": 1}


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def on_batch(case: str) -> None:
    out = sys.stdout.buffer
    if case == "batch-garbage":
        out.write(b"this is not json: <html>502 Bad Gateway</html>\n")
    elif case == "batch-deep":
        out.write(deep(200_000).encode() + b"\n")
    elif case == "batch-chatter":
        chatter = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                              "params": {"level": "info", "data": "still here"}}).encode() + b"\n"
        while True:
            out.write(chatter * 64)
            out.flush()
    else:
        out.write(json.dumps([{"jsonrpc": "2.0", "id": 9001, "result": {}},
                              {"jsonrpc": "2.0", "id": 9002, "result": {}}]).encode() + b"\n")
    out.flush()


def answer(case: str, message: Message) -> None:
    method = message.get("method")
    if method == "initialize":
        offered = message["params"]["protocolVersion"]
        reply(message, {"protocolVersion": offered, "capabilities": {"tools": {}},
                        "serverInfo": {"name": "hostile-replies", "version": "0"}})
    elif method == "tools/list":
        tools = [TOOL]
        if case == "many-tools":
            other = {"description": "another tool", "inputSchema": {"type": "object"}}
            tools = [{"name": f"tool_{n:05d}", **other} for n in range(99_999)] + tools
        reply(message, {"tools": tools})
    elif method == "tools/call":
        text = deep(100_000) if case == "deep-text" else json.dumps(STATUS, indent=2)
        reply(message, {"content": [{"type": "text", "text": text}]})
    elif method == "ping":
        reply(message, {})
    else:
        error = {"code": -32601, "message": "Method not found"}
        write({"jsonrpc": "2.0", "id": message["id"], "error": error})


def main() -> None:
    case = sys.argv[1]
    assert case in CASES, f"case is one of {', '.join(CASES)}"
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if isinstance(message, list):
            on_batch(case)
        elif isinstance(message, dict) and "id" in message:
            answer(case, message)


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        sys.exit(0)
