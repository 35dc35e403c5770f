"""The records' expectations computed the way JavaScript computes them: String() and JSON.stringify of a
value, the falsy guards (RTE-3), the upward coercion (RTE-4), the branch label (RTE-6), the box (CMP-5).

This is the suite's oracle, built on the harness's one model of JavaScript values (`conformance/core/js.py`)
and kept apart from the reference server's own (`reference_server/jsvalue.py`): nothing is judged by the thing
being judged.
"""

from __future__ import annotations

import json
import math

from conformance.core.guards import guard_failure as guard_failure
from conformance.core.js import (
    is_number,
    js_double,
    js_number_string,
    js_truthy,
    object_keys,
    utf16_length,
)
from conformance.core.jsontypes import JSON, OMIT, Omitted


def js_string(value: JSON) -> str:
    """`${value}` for a JSON value without own toString/valueOf (String(value) in JS)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number_string(js_double(value))
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if item is None else js_string(item) for item in value)
    return "[object Object]"


def coerced_total(thought_number: int | float, total_thoughts: int | float) -> float:
    """RTE-4: totalThoughts raised to thoughtNumber when thoughtNumber is larger, compared as doubles."""
    number, total = js_double(thought_number), js_double(total_thoughts)
    return number if number > total else total


def branch_key(branch_id: JSON | Omitted, branch_from: JSON | Omitted) -> str | None:
    """RTE-6: the label a call records, or None when the truthiness predicate drops it."""
    if isinstance(branch_id, Omitted) or isinstance(branch_from, Omitted):
        return None
    if not (js_truthy(branch_from) and js_truthy(branch_id)):
        return None
    return js_string(branch_id)


def same_number(answered: JSON, sent: int | float) -> bool:
    """An echoed number equals what was sent once both are read as doubles (JSON cannot carry Infinity)."""
    expected = js_double(sent)
    if not math.isfinite(expected):
        return answered is None
    return is_number(answered) and js_double(answered) == expected


def js_stringify(value: JSON, indent: int = 2, _level: int = 0) -> str:
    """JSON.stringify(value, null, indent) for parsed JSON (numbers printed as JavaScript prints them)."""
    pad, inner = " " * (indent * _level), " " * (indent * (_level + 1))
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int | float):
        number = js_double(value)
        return js_number_string(number) if math.isfinite(number) else "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        if not value:
            return "[]"
        items = [inner + js_stringify(item, indent, _level + 1) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    if not value:
        return "{}"
    members = [
        f"{inner}{json.dumps(key, ensure_ascii=False)}: {js_stringify(value[key], indent, _level + 1)}"
        for key in object_keys(value)
    ]
    return "{\n" + ",\n".join(members) + "\n" + pad + "}"


def expected_box(arguments: dict[str, JSON]) -> str:
    """CMP-5's render of an accepted call, exactly as written to stderr (no colour), after RTE-4."""
    thought = arguments["thought"]
    number = arguments["thoughtNumber"]
    total = arguments["totalThoughts"]
    assert isinstance(thought, str) and is_number(number) and is_number(total), (
        f"the harness drew the render of a call the guards refuse: {arguments!r}")
    shown = f"{js_number_string(js_double(number))}/{js_number_string(coerced_total(number, total))}"
    if js_truthy(arguments.get("isRevision")):
        revises = arguments.get("revisesThought", OMIT)
        header = f"🔄 Revision {shown} (revising thought {js_string_or_undefined(revises)})"
    elif js_truthy(arguments.get("branchFromThought")):
        source = arguments.get("branchFromThought", OMIT)
        branch_id = arguments.get("branchId", OMIT)
        header = (
            f"🌿 Branch {shown} (from thought {js_string_or_undefined(source)}, "
            f"ID: {js_string_or_undefined(branch_id)})"
        )
    else:
        header = f"💭 Thought {shown}"
    width = max(utf16_length(header), utf16_length(thought)) + 4
    border = "─" * width
    padded = thought + " " * max(0, width - 2 - utf16_length(thought))
    return f"\n┌{border}┐\n│ {header} │\n├{border}┤\n│ {padded} │\n└{border}┘\n"


def js_string_or_undefined(value: JSON | Omitted) -> str:
    return "undefined" if isinstance(value, Omitted) else js_string(value)
