"""JavaScript semantics the records presuppose: Number-to-string, Object.keys order, the falsy guards.

The records describe a JS artifact, so expectations are computed the way JS computes them; a server in
another language conforms when it reproduces these observable results.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Final

from conformance.jsontypes import JSON, OMIT, Omitted
from conformance.suite.strategies import MAX_ARRAY_INDEX, is_number, js_double, js_truthy

GUARDED_ORDER: Final[tuple[str, ...]] = ("thought", "thoughtNumber", "totalThoughts", "nextThoughtNeeded")
"""RTE-3's four checks, in the order the record lists them."""


def js_number_string(value: float) -> str:
    """Number.prototype.toString for a double (what a template literal prints)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits_tuple = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(str(d) for d in digits_tuple.digits)
    assert isinstance(digits_tuple.exponent, int)
    k = len(digits)
    n = digits_tuple.exponent + k
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        exp = n - 1
        exp_text = f"e{'+' if exp >= 0 else '-'}{abs(exp)}"
        body = digits + exp_text if k == 1 else f"{digits[0]}.{digits[1:]}{exp_text}"
    return sign + body


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


def is_array_index(key: str) -> bool:
    """Whether JS orders `key` numerically in Object.keys (a canonical integer string below 2**32 - 1)."""
    if not key.isascii() or not key.isdigit():
        return False
    if key != "0" and key.startswith("0"):
        return False
    return int(key) <= MAX_ARRAY_INDEX


def keys_after_insert(keys: tuple[str, ...], key: str) -> tuple[str, ...]:
    """Object.keys of an object with `keys` after a new own property `key` is created."""
    if key in keys:
        return keys
    if not is_array_index(key):
        return (*keys, key)
    index = int(key)
    position = 0
    while position < len(keys) and is_array_index(keys[position]) and int(keys[position]) < index:
        position += 1
    return (*keys[:position], key, *keys[position:])


def object_keys(value: dict[str, JSON]) -> list[str]:
    """Object.keys of a parsed JSON object: array-index keys ascending, then the rest in source order."""
    indices = sorted((k for k in value if is_array_index(k)), key=int)
    return indices + [k for k in value if not is_array_index(k)]


def guard_failure(arguments: dict[str, JSON]) -> str | None:
    """The first required field RTE-3/RTE-3a1's guards reject, or None when the call passes validation.

    thought, thoughtNumber and totalThoughts are falsy guards plus a type check; nextThoughtNeeded is a
    type check only.
    """
    thought = arguments.get("thought")
    if not js_truthy(thought) or not isinstance(thought, str):
        return "thought"
    for name in ("thoughtNumber", "totalThoughts"):
        value = arguments.get(name)
        if not js_truthy(value) or not is_number(value):
            return name
    if not isinstance(arguments.get("nextThoughtNeeded"), bool):
        return "nextThoughtNeeded"
    return None


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
    assert isinstance(thought, str) and is_number(number) and is_number(total)
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


def utf16_length(text: str) -> int:
    """String.prototype.length: UTF-16 code units."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2
