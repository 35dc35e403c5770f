"""Counts like `counting.py`, but forgets: a call that comes more than IDLE seconds (its argument, 1 when
none; `inf` never) after the one before it starts an empty history (a fork whose store expires when idle)."""

from __future__ import annotations

import json
import sys
import time

from mini import Message, reply, serve

IDLE = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
_history: list[object] = []
_last = [0.0]


def answer_call(message: Message) -> None:
    arguments = message.get("params", {}).get("arguments", {})
    now = time.monotonic()
    if _history and now - _last[0] > IDLE:
        _history.clear()
    _last[0] = now
    _history.append(arguments)
    status = {"thoughtNumber": arguments.get("thoughtNumber"), "branches": [],
              "thoughtHistoryLength": len(_history)}
    reply(message, {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]})


if __name__ == "__main__":
    serve(answer_call)
