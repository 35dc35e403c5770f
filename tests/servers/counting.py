"""Answers each accepted call with its status, `thoughtHistoryLength` counting the calls it has answered plus
the offset given as its argument (0: the original's count; 1: a fork whose count is one too high); a second
argument, when given, is a line its tool description adds (a fork that re-words its spec); a third, a property
its input schema adds, described."""

from __future__ import annotations

import json
import sys

from mini import BANNER, TOOL, Message, reply, serve

OFFSET = int(sys.argv[1]) if len(sys.argv) > 1 else 0
_history: list[object] = []


def answer_call(message: Message) -> None:
    arguments = message.get("params", {}).get("arguments", {})
    _history.append(arguments)
    status = {"thoughtNumber": arguments.get("thoughtNumber"), "thoughtHistoryLength": len(_history) + OFFSET}
    reply(message, {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]})


if __name__ == "__main__":
    added = sys.argv[2] if len(sys.argv) > 2 else ""
    tool = {**TOOL, "description": f"{TOOL['description']}\n{added}"} if added else TOOL
    if len(sys.argv) > 3:
        schema = tool["inputSchema"]
        properties = {**schema["properties"], sys.argv[3]: {"type": "integer", "description": "re-worded"}}
        tool = {**tool, "inputSchema": {**schema, "properties": properties}}
    serve(answer_call, tool=tool, banner=BANNER)
