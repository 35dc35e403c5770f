"""Checks the tool's fields one after another and refuses (isError, "Invalid F: must be a T") at the first
that fails, as the original does; its arguments change what it checks, so two copies differ the ways real
forks do:

- `order=F,G,…`: the order the required fields are checked in (default thought, thoughtNumber, totalThoughts,
  nextThoughtNeeded);
- `converts=F,…`: numeric strings for these numbered fields are converted before they are checked;
- `unchecked=F,…`: these optional fields are never checked (any value passes);
- `revision-needs-target`: `isRevision` true without `revisesThought` is refused;
- `revision-target-named`: `isRevision` true without `revisesThought` is refused in words naming the missing
  `revisesThought` first;
- `branch-before`: `branchFromThought` not below `thoughtNumber` is refused, before any other check;
- `crash-label`: a `branchId` of "constructor" fails as a crash does, in words naming no field;
- `crash-at-first`: a call at thoughtNumber 1 crashes before any check (a fork reading a field only the
  first thought lacks), whatever else it carries;
- `prefix=P`: every refusal's words begin with P (the same refusals, re-worded);
- `schema-words`: an optional field's wrong type is refused as a schema library words it ("isRevision:
  Expected boolean"), which names no field the way "Invalid F:" does.

What compare's and run's re-tests (conformance/core/retest.py) must tell apart: validation order, a field one
side lets pass, a field one side never checks, a rule between fields."""

from __future__ import annotations

import json
import sys

from mini import Message, reply, serve

OPTIONS = dict(arg.partition("=")[::2] for arg in sys.argv[1:])
ORDER = (OPTIONS.get("order") or "thought,thoughtNumber,totalThoughts,nextThoughtNeeded").split(",")
CONVERTS = set(filter(None, OPTIONS.get("converts", "").split(",")))
UNCHECKED = set(filter(None, OPTIONS.get("unchecked", "").split(",")))
TYPES = {"thought": "string", "thoughtNumber": "number", "totalThoughts": "number",
         "nextThoughtNeeded": "boolean", "isRevision": "boolean", "revisesThought": "number",
         "branchFromThought": "number", "branchId": "string"}
OPTIONAL = ("isRevision", "revisesThought", "branchFromThought", "branchId")


def _is(value: object, kind: str) -> bool:
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    return isinstance(value, str)


def refusal(args: dict[str, object]) -> str:
    since, number = args.get("branchFromThought"), args.get("thoughtNumber")
    if "crash-at-first" in OPTIONS and number == 1:
        return "Cannot read properties of undefined (reading 'split')"
    if "branch-before" in OPTIONS and _is(since, "number") and _is(number, "number") \
            and since >= number:  # type: ignore[operator]
        return "branchFromThought must be less than thoughtNumber"
    for name in CONVERTS:
        value = args.get(name)
        if isinstance(value, str) and value.isdigit():
            args[name] = int(value)
    for name in ORDER:
        if not _is(args.get(name), TYPES[name]):
            return f"Invalid {name}: must be a {TYPES[name]}"
    for name in OPTIONAL:
        if name in args and name not in UNCHECKED and not _is(args[name], TYPES[name]):
            if "schema-words" in OPTIONS:
                return f"{name}: Expected {TYPES[name]}"
            return f"Invalid {name}: must be a {TYPES[name]}"
    if "revision-needs-target" in OPTIONS and args.get("isRevision") is True and "revisesThought" not in args:
        return "Invalid isRevision: isRevision requires revisesThought"
    if "revision-target-named" in OPTIONS and args.get("isRevision") is True and "revisesThought" not in args:
        return "Invalid revisesThought: required when isRevision is true"
    if "crash-label" in OPTIONS and args.get("branchId") == "constructor":
        return "this.branches[data.branchId].push is not a function"
    return ""


def answer_call(message: Message) -> None:
    args = message.get("params", {}).get("arguments")
    said = refusal(dict(args)) if isinstance(args, dict) else "Invalid arguments: must be an object"
    if said:
        said = OPTIONS.get("prefix", "") + said
        reply(message, {"content": [{"type": "text", "text": said}], "isError": True})
    else:
        text = json.dumps({"thoughtNumber": args["thoughtNumber"]})
        reply(message, {"content": [{"type": "text", "text": text}]})


if __name__ == "__main__":
    serve(answer_call)
