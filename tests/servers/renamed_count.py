"""A server that names its history counter otherwise: each accepted call is answered with the original's
status, its count under `historyLength` instead of `thoughtHistoryLength` (as the blind fork
fork-audit-clock does, issue 43), and its branch labels in order of first use."""

from __future__ import annotations

import json

from mini import BANNER, Message, reply, serve

_history: list[object] = []
_labels: list[str] = []


def answer_call(message: Message) -> None:
    arguments = message.get("params", {}).get("arguments", {})
    if not isinstance(arguments, dict):
        arguments = {}
    _history.append(arguments)
    label = arguments.get("branchId")
    # "__proto__" is no label of the original's store (a JavaScript object's prototype), nor of this one's.
    if isinstance(label, str) and arguments.get("branchFromThought") and label not in (*_labels, "__proto__"):
        _labels.append(label)
    status = {key: arguments.get(key) for key in ("thoughtNumber", "totalThoughts", "nextThoughtNeeded")}
    status |= {"branches": list(_labels), "historyLength": len(_history)}
    reply(message, {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]})


if __name__ == "__main__":
    serve(answer_call, banner=BANNER)
