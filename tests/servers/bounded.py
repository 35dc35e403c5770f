"""Accepts every call whose numbers are numbers and strings strings, refusing (isError) only by the rules its
arguments name: `min-total` (totalThoughts below 1), `max-label` (branchId longer than 256 characters),
`max-label-bytes` (branchId longer than 256 bytes of UTF-8), `max-label-units` (longer than 256 UTF-16
units, JavaScript's `length`), `integer-total` (a totalThoughts that is not an integer), `string-label`
(a branchId not a string), `branch-before` (a branchFromThought not below thoughtNumber), `falsy`
(a zero totalThoughts, as the original's guard). What compare's re-testing of a refused value
(conformance/compare/bounds.py) must tell apart."""

from __future__ import annotations

import json
import sys

from mini import Message, reply, serve

RULES = set(sys.argv[1:])


def refusal(args: dict[str, object]) -> str:
    total, label = args.get("totalThoughts"), args.get("branchId")
    if not isinstance(total, int | float) or isinstance(total, bool):
        return "Invalid totalThoughts: must be a number"
    if "falsy" in RULES and not total:
        return "Invalid totalThoughts: must be a number"
    if "min-total" in RULES and total < 1:
        return "Invalid totalThoughts: must be at least 1"
    if "integer-total" in RULES and not float(total).is_integer():
        return "Invalid totalThoughts: must be an integer"
    since, number = args.get("branchFromThought"), args.get("thoughtNumber")
    if "branch-before" in RULES and isinstance(since, int) and isinstance(number, int) and since >= number:
        return "Invalid branchFromThought: must be less than thoughtNumber"
    if "string-label" in RULES and label is not None and not isinstance(label, str):
        return "Invalid branchId: must be a string"
    if "max-label" in RULES and isinstance(label, str) and len(label) > 256:
        return "Invalid branchId: at most 256 characters"
    if "max-label-bytes" in RULES and isinstance(label, str) and len(label.encode("utf-8")) > 256:
        return "Invalid branchId: at most 256 bytes"
    if "max-label-units" in RULES and isinstance(label, str) and len(label.encode("utf-16-le")) > 512:
        return "Invalid branchId: at most 256 units"
    return ""


def answer_call(message: Message) -> None:
    args = message.get("params", {}).get("arguments", {})
    said = refusal(args if isinstance(args, dict) else {})
    if said:
        reply(message, {"content": [{"type": "text", "text": said}], "isError": True})
    else:
        reply(message, {"content": [{"type": "text", "text": json.dumps({"ok": True})}]})


if __name__ == "__main__":
    serve(answer_call)
