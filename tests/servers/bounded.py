"""Accepts every call whose numbers are numbers and strings strings, refusing (isError) only by the rules its
arguments name: `min-total` (totalThoughts below 1), `max-label` (branchId longer than 256 characters),
`max-label-bytes` (branchId longer than 256 bytes of UTF-8), `max-label-units` (longer than 256 UTF-16
units, JavaScript's `length`), `integer-total` (a totalThoughts that is not an integer), `string-label`
(a branchId not a string), `branch-before` (a branchFromThought not below thoughtNumber), `falsy`
(a zero totalThoughts, as the original's guard). Rules with a number: `ratio=K` (a thoughtNumber more than
K times totalThoughts), `offset=C` (a thoughtNumber more than totalThoughts + C), `least-total=N` (a
totalThoughts below N), `min-label=N`, `min-label-bytes=N`, `min-label-units=N` (a branchId shorter than N
characters, bytes of UTF-8, UTF-16 units); `not-both=F,G` (F and G both truthy). What compare's re-testing of
a refused value (conformance/compare/bounds.py, two_fields.py) must tell apart."""

from __future__ import annotations

import json
import sys

from mini import Message, reply, serve

RULES = set(sys.argv[1:])
NUMBERED = {name: value for name, _, value in (rule.partition("=") for rule in RULES) if value}
"""The rules given with a value (`ratio=10`): each name and its value."""


def _units(label: str, rule: str) -> int:
    if rule == "min-label-bytes":
        return len(label.encode("utf-8"))
    if rule == "min-label-units":
        return len(label.encode("utf-16-le")) // 2
    return len(label)


def numbered_refusal(args: dict[str, object]) -> str:
    """The refusal of the rules given with a value, else ""."""
    sent, label = (args.get("thoughtNumber"), args.get("totalThoughts")), args.get("branchId")
    numbers = [float(x) for x in sent if isinstance(x, int | float) and not isinstance(x, bool)]
    number, total = numbers if len(numbers) == 2 else (None, None)
    if number is not None and total is not None:
        if "ratio" in NUMBERED and number > float(NUMBERED["ratio"]) * total:
            return f"Invalid thoughtNumber: more than {NUMBERED['ratio']} times totalThoughts"
        if "offset" in NUMBERED and number > total + float(NUMBERED["offset"]):
            return f"Invalid thoughtNumber: more than totalThoughts + {NUMBERED['offset']}"
        if "least-total" in NUMBERED and total < float(NUMBERED["least-total"]):
            return f"Invalid totalThoughts: at least {NUMBERED['least-total']}"
    for rule in ("min-label", "min-label-bytes", "min-label-units"):
        if rule in NUMBERED and isinstance(label, str) and _units(label, rule) < int(NUMBERED[rule]):
            return f"Invalid branchId: at least {NUMBERED[rule]}"
    if "not-both" in NUMBERED:
        one, _, two = NUMBERED["not-both"].partition(",")
        if args.get(one) and args.get(two):
            return f"Invalid {one}: not with {two}"
    return ""


def refusal(args: dict[str, object]) -> str:
    total, label = args.get("totalThoughts"), args.get("branchId")
    if not isinstance(total, int | float) or isinstance(total, bool):
        return "Invalid totalThoughts: must be a number"
    if "falsy" in RULES and not total:
        return "Invalid totalThoughts: must be a number"
    if numbered_refusal(args):
        return numbered_refusal(args)
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
