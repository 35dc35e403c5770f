"""A server that ends itself once the thinking is done: it answers each call with its status (the count of
thoughts this process holds) and exits with status 0 right after answering a call with nextThoughtNeeded
false, as the modified original exit-after-final-thought does 100 ms later (issue 43: a check whose calls
met that process and the next one read the count fall)."""

from __future__ import annotations

import json
import sys

from mini import Message, reply, serve

_history: list[object] = []


def answer_call(message: Message) -> None:
    arguments = message.get("params", {}).get("arguments", {})
    _history.append(arguments)
    status = {"thoughtNumber": arguments.get("thoughtNumber") if isinstance(arguments, dict) else None,
              "branches": [], "thoughtHistoryLength": len(_history)}
    reply(message, {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]})
    if isinstance(arguments, dict) and arguments.get("nextThoughtNeeded") is False:
        sys.exit(0)


if __name__ == "__main__":
    serve(answer_call)
