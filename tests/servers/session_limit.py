"""A server whose state runs out: it answers each call with its status until its history holds LIMIT thoughts
(argument 1, default 100), then refuses every call with isError "Thought limit reached (LIMIT)", as the blind
fork fork-bounded-session does (issue 43). A fresh process accepts calls again."""

from __future__ import annotations

import json
import sys

from mini import BANNER, Message, reply, serve

LIMIT = int(sys.argv[1]) if len(sys.argv) > 1 else 100
_history: list[object] = []


def answer_call(message: Message) -> None:
    if len(_history) >= LIMIT:
        text = json.dumps({"error": f"Thought limit reached ({LIMIT})", "status": "failed"}, indent=2)
        reply(message, {"content": [{"type": "text", "text": text}], "isError": True})
        return
    arguments = message.get("params", {}).get("arguments", {})
    _history.append(arguments)
    status = {"thoughtNumber": arguments.get("thoughtNumber") if isinstance(arguments, dict) else None,
              "branches": [], "thoughtHistoryLength": len(_history)}
    reply(message, {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]})


if __name__ == "__main__":
    serve(answer_call, banner=BANNER)
