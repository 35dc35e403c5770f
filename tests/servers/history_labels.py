"""A server whose branches lists the distinct truthy branchId values of its history, as sent (a number stays a
number, an object an object), as the blind fork fork-typescript-port does (issue 43): a label one record's
witnesses leave behind that is not a string is not subtracted by the probe's relative reading, so it showed in
every later record's answers on a shared witness process."""

from __future__ import annotations

import json

from mini import BANNER, Message, reply, serve

_history: list[dict[str, object]] = []


def answer_call(message: Message) -> None:
    arguments = message.get("params", {}).get("arguments", {})
    if not isinstance(arguments, dict):
        arguments = {}
    _history.append(arguments)
    labels: list[object] = []
    for thought in _history:
        label = thought.get("branchId")
        if label and label not in labels:
            labels.append(label)
    status = {key: arguments.get(key) for key in ("thoughtNumber", "totalThoughts", "nextThoughtNeeded")}
    status |= {"branches": labels, "thoughtHistoryLength": len(_history)}
    reply(message, {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]})


if __name__ == "__main__":
    serve(answer_call, banner=BANNER)
