"""Lists a tool of its own (`add_thought`, with a `branch_id` property), not sequentialthinking, and
answers a call to any name it does not dispatch with a text result holding {"error": "Tool NAME not found"},
not isError (spideynolove's sequential-thinking-mcp-v2, on the low-level SDK server). `known` after the
script: a call to sequentialthinking is answered with the original's status object instead."""

from __future__ import annotations

import json
import sys

from mini import Message, reply, serve

TOOL = {"name": "add_thought", "inputSchema": {"type": "object", "properties": {
    "content": {"type": "string"}, "branch_id": {"type": "string"}}, "required": ["content"]}}


def answer_call(message: Message) -> None:
    name = message.get("params", {}).get("name")
    if name == "sequentialthinking" and "known" in sys.argv[1:]:
        status = {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False, "branches": [],
                  "thoughtHistoryLength": 1}
        reply(message, {"content": [{"type": "text", "text": json.dumps(status)}]})
    else:
        unknown = json.dumps({"error": f"Tool {name} not found"})
        reply(message, {"content": [{"type": "text", "text": unknown}]})


if __name__ == "__main__":
    serve(answer_call, tool=TOOL)
