"""A server whose store one call poisons, as a real fork's does (bartoszkula-ts, reports/third-party/
AUDIT-round9.md): each call is answered as the original answers it until one files under branchId
"__proto__"; from then on every call is appended and refused with the crash the fork's regrouping of the
whole history throws, isError “branches[thought.branchId].push is not a function”. With `--crash-before`, a
call with thoughtNumber 1 whose thought is not a string is answered a JSON-RPC error -32603 instead (the
fork's prompt analysis reading the thought before validation)."""

from __future__ import annotations

import json
import sys

from mini import Message, reply, serve, write

PUSH = "branches[thought.branchId].push is not a function"
SPLIT = "Cannot read properties of undefined (reading 'split')"

_history: list[object] = []
_labels: list[str] = []
_poisoned: list[bool] = [False]


def answer_call(message: Message) -> None:
    arguments = message.get("params", {}).get("arguments", {})
    if not isinstance(arguments, dict):
        arguments = {}
    thought = arguments.get("thought")
    if "--crash-before" in sys.argv and arguments.get("thoughtNumber") == 1 and not isinstance(thought, str):
        write({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": SPLIT}})
        return
    if not isinstance(thought, str) or not thought:
        refuse(message, "Invalid thought: must be a string")
        return
    _history.append(arguments)
    label = arguments.get("branchId")
    if label == "__proto__":
        _poisoned[0] = True
    if _poisoned[0]:
        refuse(message, PUSH)
        return
    if isinstance(label, str) and arguments.get("branchFromThought") and label not in _labels:
        _labels.append(label)
    status = {key: arguments.get(key) for key in ("thoughtNumber", "totalThoughts", "nextThoughtNeeded")}
    status |= {"branches": list(_labels), "thoughtHistoryLength": len(_history)}
    reply(message, {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]})


def refuse(message: Message, words: str) -> None:
    body = json.dumps({"error": words, "status": "failed"}, indent=2)
    reply(message, {"content": [{"type": "text", "text": body}], "isError": True})


if __name__ == "__main__":
    serve(answer_call)
