"""Validates each call as the original does (a string thought, positive integer numbers, a boolean flag) and
refuses the rest; `plain` keeps nothing from a refusal, `counted` says in each refusal how many this process
has made (state kept from refused calls while every valid call is still accepted, as a lockout's counter is):
the two kinds of target the witness signing tells apart before it stops signing refused records again alone
(gate/signatures.py `REFUSAL_CHECKS`); `stamped` keeps nothing either, and stamps each refusal with the time
it was made (fork-hardened-store's refusals carry a `timestamp`); `lockout`, after three refusals in a row,
answers the next call, whatever it holds, "Too many invalid calls in a row" and
counts again from zero (fork-model-guard's refusal-streak lockout: no call sent again after it shows it);
`accepting` refuses nothing and counts every call (an original accepting what its guards would refuse). Every
mode writes the original's start-up line to stderr first, as the original does, so a replay's banner wait
ends at it rather than at its bound."""

from __future__ import annotations

import datetime
import json
import sys

from mini import BANNER, Message, reply, serve

COUNTED = len(sys.argv) > 1 and sys.argv[1] == "counted"
STAMPED = len(sys.argv) > 1 and sys.argv[1] == "stamped"
LOCKOUT = len(sys.argv) > 1 and sys.argv[1] == "lockout"
ACCEPTING = len(sys.argv) > 1 and sys.argv[1] == "accepting"
_history: list[dict[str, object]] = []
_refusals = [0]
_streak = [0]


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _refusal(arguments: object) -> str | None:
    if not isinstance(arguments, dict):
        return "Invalid arguments: must be an object"
    if not isinstance(arguments.get("thought"), str) or not arguments["thought"]:
        return "Invalid thought: must be a string"
    if not _positive(arguments.get("thoughtNumber")):
        return "Invalid thoughtNumber: must be a number"
    if not _positive(arguments.get("totalThoughts")):
        return "Invalid totalThoughts: must be a number"
    if not isinstance(arguments.get("nextThoughtNeeded"), bool):
        return "Invalid nextThoughtNeeded: must be a boolean"
    return None


def answer_call(message: Message) -> None:
    arguments = message.get("params", {}).get("arguments")
    if LOCKOUT and _streak[0] >= 3:
        _streak[0] = 0
        text = json.dumps({"error": "Too many invalid calls in a row: this call was not processed"}, indent=2)
        reply(message, {"content": [{"type": "text", "text": text}], "isError": True})
        return
    refusal = None if ACCEPTING else _refusal(arguments)
    _streak[0] = _streak[0] + 1 if refusal is not None else 0
    if refusal is not None:
        _refusals[0] += 1
        said = f"{refusal} (refusal {_refusals[0]})" if COUNTED else refusal
        stamp = {"timestamp": datetime.datetime.now(datetime.UTC).isoformat()} if STAMPED else {}
        text = json.dumps({"error": said, "status": "failed", **stamp}, indent=2)
        reply(message, {"content": [{"type": "text", "text": text}], "isError": True})
        return
    arguments = arguments if isinstance(arguments, dict) else {}
    _history.append(arguments)
    status = {key: arguments.get(key) for key in ("thoughtNumber", "totalThoughts", "nextThoughtNeeded")}
    status |= {"branches": [], "thoughtHistoryLength": len(_history)}
    reply(message, {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]})


if __name__ == "__main__":
    serve(answer_call, banner=BANNER)
