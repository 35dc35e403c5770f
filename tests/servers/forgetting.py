"""Counts like `counting.py`, but forgets: a call that comes more than IDLE seconds (its argument, 1 when
none; `inf` never) after the one before it starts an empty history (a fork whose store expires when idle).
With `--forget-when PATH`, the first call after the file PATH appears starts an empty history instead: the
same fork, told when to forget by the test (an event), not by the clock of a loaded machine."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from mini import Message, reply, serve

_ARGS = sys.argv[1:]
MARK = Path(_ARGS[_ARGS.index("--forget-when") + 1]) if "--forget-when" in _ARGS else None
IDLE = float(_ARGS[0]) if _ARGS and MARK is None else 1.0 if MARK is None else float("inf")
_history: list[object] = []
_last = [0.0]
_forgot = [False]


def answer_call(message: Message) -> None:
    arguments = message.get("params", {}).get("arguments", {})
    now = time.monotonic()
    if _history and now - _last[0] > IDLE:
        _history.clear()
    if MARK is not None and not _forgot[0] and MARK.exists():
        _forgot[0] = True
        _history.clear()
    _last[0] = now
    _history.append(arguments)
    status = {"thoughtNumber": arguments.get("thoughtNumber"), "branches": [],
              "thoughtHistoryLength": len(_history)}
    reply(message, {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]})


if __name__ == "__main__":
    serve(answer_call)
