"""What one side did with one step, normalized, and how two such observations differ.

The store is compared as an effect: `thoughtHistoryLength` and `branches` relative to the program's start
on that side, so two long-lived processes whose histories differ in length still compare equal on the
same program. What each side's SDK owns (docs/reference-server.md, EXT-1) is normalized before comparing:
key order (JSON is compared parsed), `isError: false` against an absent `isError`, and the code and
message of a JSON-RPC error answering tools/call.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Final, Literal

from conformance.compare.programs import FIELDS, Step
from conformance.core.differences import box_span, box_unchanged, spelled_alike
from conformance.core.js import MAX_SAFE_INTEGER, PROTOTYPE_KEYS, js_truthy
from conformance.core.jsontypes import JSON, Omitted
from conformance.core.protocol import TOOL
from conformance.core.served import read_served, trailed
from conformance.drivers.wire import Exchange

Kind = Literal["result", "protocol error", "no answer", "exited", "wrong id"]

NORMALIZED_IS_ERROR: Final = (
    "`isError: false` is read as an absent `isError` (EXT-1, docs/reference-server.md)"
)
NORMALIZED_KEY_ORDER: Final = "answers are compared as parsed JSON: key order is the SDK's (EXT-1)"
NORMALIZED_PROTOCOL_ERROR: Final = (
    "a JSON-RPC error answering tools/call is compared as `a protocol error`; its code and message belong to "
    "each side's SDK (EXT-1, docs/reference-server.md)"
)
NORMALIZED_STORE: Final = (
    "thoughtHistoryLength and branches are compared relative to the program's start on each side"
)


@dataclass(frozen=True)
class Base:
    """The store as a side's program starts from it."""

    length: int = 0
    branches: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Outcome:
    """One side's answer to one step, normalized."""

    kind: Kind
    is_error: bool = False
    text: str | None = None
    parsed: JSON | None = None
    parses: bool = False
    extras: dict[str, JSON] = field(default_factory=dict)
    store: tuple[int, tuple[str, ...]] | None = None
    stderr: str = ""
    raw: str = ""
    normalized: frozenset[str] = frozenset()

    @property
    def accepted(self) -> bool:
        return self.kind == "result" and not self.is_error

    def show(self) -> str:
        """What the side answered, in one line for a report."""
        if self.kind != "result":
            return f"{self.kind}: {self.raw}"[:600]
        flag = "isError " if self.is_error else ""
        text = self.text if self.text is not None else "(no text content)"
        extras = f" + {', '.join(sorted(self.extras))}" if self.extras else ""
        return f"{flag}{' '.join(text.split())}{extras}"[:600]


Store = tuple[int, tuple[str, ...]]


def _relative(status: dict[str, JSON], base: Base) -> tuple[dict[str, JSON], Store | None]:
    """The status without its store keys, and the store effect relative to `base`. A store key renamed
    (`thought_history_length`: held-out-multi-11's toolkit-port) is read under its new name, so a store kept
    alike is not said as "no thoughtHistoryLength" nor as a history bound; the rename is the status's
    difference."""
    keys = spelled_alike("thoughtHistoryLength", status), spelled_alike("branches", status)
    length, branches = (status.get(k) if k is not None else None for k in keys)
    if not isinstance(length, int) or isinstance(length, bool) or not isinstance(branches, list):
        return status, None
    new = tuple(str(b) for b in branches if str(b) not in base.branches)
    rest = {k: v for k, v in status.items() if k not in keys}
    return rest, (length - base.length, new)


def _leading_object(text: str) -> JSON | None:
    """The JSON object an answer's text begins with when more text follows it (`trailed`), else None."""
    trail = trailed(text)
    if trail is None:
        return None
    try:
        return read_served(trail[0], "answer text")
    except ValueError:
        return None


def observe(exchange: Exchange, base: Base) -> Outcome:
    """Normalize one answer: parsed text, store effect relative to `base`, extra result keys."""
    stderr = exchange.stderr.decode("utf-8", errors="backslashreplace")
    error = exchange.error
    if error is not None:
        return Outcome("protocol error", raw=json.dumps(error, ensure_ascii=False)[:600], stderr=stderr,
                       normalized=frozenset({NORMALIZED_PROTOCOL_ERROR}))
    result = exchange.result or {}
    notes = {NORMALIZED_KEY_ORDER}
    if "isError" in result and not js_truthy(result["isError"]):
        notes.add(NORMALIZED_IS_ERROR)
    text = exchange.text
    parsed: JSON | None = None
    parses = False
    store = None
    leading: JSON | None = None
    if text is not None:
        try:
            parsed = read_served(text, "answer text")
            parses = True
        except ValueError:
            parsed = None
            leading = _leading_object(text)
    if isinstance(parsed, dict):
        parsed, store = _relative(parsed, base)
        if store is not None:
            notes.add(NORMALIZED_STORE)
    elif isinstance(leading, dict):
        # A status with text after it (stopuncle-js): the text differs as text, the store is still read.
        _, store = _relative(leading, base)
    extras: dict[str, JSON] = {}
    for key, value in result.items():
        if key in ("content", "isError"):
            continue
        if isinstance(value, dict):
            value, _ = _relative(value, base)
        extras[key] = value
    content = result.get("content")
    if isinstance(content, list) and len(content) > 1:
        extras["content[1:]"] = content[1:]
    return Outcome("result", exchange.is_error, text, parsed, parses, extras, store, stderr,
                   json.dumps(result, ensure_ascii=False)[:600], frozenset(notes))


def failed(kind: Kind, message: str) -> Outcome:
    return Outcome(kind, raw=message[:600])


# -- differences of one step -------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """One difference on one step, before minimization: its signature and both sides' answers."""

    aspect: str
    field: str
    type_class: str
    detail: str
    a: str
    b: str
    affects_state: bool
    suspect: str = ""
    """For an accepted-call difference: the field its minimal step bends (`with_suspect`)."""

    @property
    def signature(self) -> str:
        parts = (self.aspect, self.field, self.type_class, self.detail)
        return ".".join(_slug(part) for part in parts if part)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_\-]+", "-", text).strip("-") or "_"


_FIELD_RE: Final = re.compile(r"\b(" + "|".join(FIELDS) + r")\b")


def named_field(*messages: str | None) -> str:
    """The first argument field an error message names (both SDKs' messages name the path)."""
    for message in messages:
        if message:
            match = _FIELD_RE.search(message)
            if match:
                return match.group(1)
    return ""


def type_class(value: JSON | Omitted) -> str:
    """The kind of value that triggers a difference, in words a report can use."""
    if isinstance(value, Omitted):
        return "missing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        if value == 0:
            return "zero"
        if value < 0:
            return "negative number"
        if isinstance(value, float) and not value.is_integer():
            return "fraction"
        if abs(value) > MAX_SAFE_INTEGER:
            return "number beyond 2^53"
        return "integer"
    if isinstance(value, str):
        if value == "":
            return "empty string"
        if value in PROTOTYPE_KEYS:
            return "prototype key"
        if value.lower() in ("true", "false"):
            return "boolean string"  # "True" too: a side reading booleans without case (upstream #3533)
        if re.fullmatch(r"-?\d+(\.\d+)?", value):
            return "numeric string"
        return "string"
    return "array" if isinstance(value, list) else "object"


UNKNOWN_TOOL: Final = "unknown tool"
"""The value class of a call naming a tool other than the one compared."""


def trigger(step: Step, *messages: str | None) -> tuple[str, str]:
    """(field, type class) of what in `step` the answers point at."""
    if step.name != TOOL:
        return "name", UNKNOWN_TOOL
    args = step.arguments
    if not isinstance(args, dict):
        return "arguments", type_class(args)
    name = named_field(*messages)
    if name:
        return name, type_class(args.get(name, _MISSING))
    return "", ""


_MISSING: Final = Omitted.OMIT


VALID_CLASSES: Final[dict[str, frozenset[str]]] = {
    # A string of digits or of "true" is a string: nothing converts it in a string field, so it bends nothing
    # (held-out-multi-11's plan-hints: a shrunk thought "000…" was blamed, under `coercion`, for a Revision
    # box its `revisesThought` drew).
    **{name: frozenset({"string", "numeric string", "boolean string"}) for name in ("thought", "branchId")},
    **{name: frozenset({"integer"}) for name in ("thoughtNumber", "totalThoughts", "revisesThought",
                                                  "branchFromThought")},
    **{name: frozenset({"boolean"}) for name in ("nextThoughtNeeded", "isRevision", "needsMoreThoughts")},
}


def with_suspect(found: Found, step: Step) -> Found:
    """An accepted-call difference (status, store, stderr) read with the field its minimal step bends.

    No error message names a field there; a shrunk step keeps only the values it needs, so the first field
    whose value is not of its declared type is the likely trigger. The signature (the id) is unchanged.
    """
    if found.aspect not in ("answer", "store", "stderr") or found.detail == "error text" or found.type_class:
        return found
    args = step.arguments
    if not isinstance(args, dict):
        return found
    for name in FIELDS:
        if name in args and type_class(args[name]) not in VALID_CLASSES[name]:
            return replace(found, suspect=name, type_class=type_class(args[name]))
    return found


def compare_step(step: Step, a: Outcome, b: Outcome) -> list[Found]:
    """Every aspect in which the two answers to `step` differ; the most basic one alone when they do."""
    if a.kind != b.kind and "wrong id" in (a.kind, b.kind):
        return [Found("request_id", "id", "string", f"{_kind(a)} vs {_kind(b)}", a.show(), b.show(), True)]
    if a.kind != b.kind:
        fld, cls = trigger(step, a.raw, b.raw, a.text, b.text)
        return [Found("error_class", fld, cls, f"{_kind(a)} vs {_kind(b)}", a.show(), b.show(), True)]
    if a.kind != "result":
        return []
    if a.is_error != b.is_error:
        fld, cls = trigger(step, a.text if a.is_error else None, b.text if b.is_error else None)
        direction = "refused by a" if a.is_error else "refused by b"
        return [Found("is_error", fld, cls, direction, a.show(), b.show(), True)]
    found: list[Found] = []
    if a.is_error:
        if a.text != b.text:
            fld, _ = trigger(step, a.text, b.text)
            found.append(Found("answer", fld, "", "error text", a.show(), b.show(), False))
    else:
        if a.parses and b.parses:
            if a.parsed != b.parsed:
                keys = _keys(a.parsed, b.parsed)
                found.append(Found("answer", keys, "", "status", a.show(), b.show(), False))
        elif a.text != b.text:
            found.append(Found("answer", "", "", "text", a.show(), b.show(), False))
        if a.store != b.store:
            where = _store_field(a.store, b.store)
            found.append(Found("store", where, "", "effect", _store(a), _store(b), True))
        if a.stderr != b.stderr:
            found.append(Found("stderr", _box_line(a.stderr, b.stderr), "", _box_detail(step),
                               a.stderr[:BOX_CHARS], b.stderr[:BOX_CHARS], False))
    for key in sorted(set(a.extras) | set(b.extras)):
        if a.extras.get(key, _MISSING) != b.extras.get(key, _MISSING):
            detail = "added" if key not in a.extras else "removed" if key not in b.extras else "changed"
            found.append(Found("answer", key, "", detail, _extra(a, key), _extra(b, key), False))
    return found


def _kind(outcome: Outcome) -> str:
    if outcome.kind == "result":
        return "tool error" if outcome.is_error else "tool result"
    return outcome.kind


def _keys(a: JSON | None, b: JSON | None) -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(k for k in set(a) | set(b) if a.get(k, _MISSING) != b.get(k, _MISSING))
        return "+".join(keys)
    return ""


def _store_field(a: tuple[int, tuple[str, ...]] | None, b: tuple[int, tuple[str, ...]] | None) -> str:
    if a is None or b is None:
        return "status"
    return "thoughtHistoryLength" if a[0] != b[0] else "branches"


def _store(outcome: Outcome) -> str:
    if outcome.store is None:
        # Not "no store": stopuncle-js' answer counts its thoughts and names its labels `activeBranches`.
        return "no thoughtHistoryLength with a branches list in the answer"
    grown, new = outcome.store
    return f"thoughtHistoryLength +{grown}, new branches {json.dumps(list(new), ensure_ascii=False)}"


def _extra(outcome: Outcome, key: str) -> str:
    if key not in outcome.extras:
        return f"no {key}"
    return f"{key}: {json.dumps(outcome.extras[key], ensure_ascii=False)}"[:600]


BOX_CHARS: Final = 4000
"""A stderr box kept whole up to this, so its width, padding and rows can be read (`box_difference`)."""
MULTI_LINE_BOX: Final = "box, multi-line thought"
AFTER_THE_BOX: Final = "after the box"
"""The stderr line that differs first comes after the box's six lines."""


def _box_detail(step: Step) -> str:
    """A multi-line thought's box is its own difference (its rows per line), not folded into the first box
    that differed."""
    args = step.arguments
    thought = args.get("thought") if isinstance(args, dict) else None
    return MULTI_LINE_BOX if isinstance(thought, str) and "\n" in thought else "box"


AROUND_THE_BOX: Final = "around the box"
"""The same box on both sides, lines written before it differing (after it too, or not)."""


def _box_line(a: str, b: str) -> str:
    """Which line of the box differs first: border, header or body; the lines before or after it when both
    draw the same box (a server logging "[DEBUG] …" around it had been said to differ at its blank)."""
    lines_a, lines_b = a.split("\n"), b.split("\n")
    span_a, span_b = box_span(lines_a), box_span(lines_b)
    if span_a is not None and span_b is not None and box_unchanged(a, b):
        before_differs = lines_a[: span_a[0]] != lines_b[: span_b[0]]
        return AROUND_THE_BOX if before_differs else AFTER_THE_BOX
    names = ("blank", "top border", "header", "middle border", "body", "bottom border")
    for index, (x, y) in enumerate(zip(a.split("\n"), b.split("\n"), strict=False)):
        if x != y:
            return names[index] if index < len(names) else AFTER_THE_BOX
    return "length"
