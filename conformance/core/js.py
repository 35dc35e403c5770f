"""The JavaScript value semantics the harness judges servers by, written once: truthiness, numbers as doubles
and as strings, string length in UTF-16 code units, and the order of an object's keys.

The records describe a JavaScript artifact, so every room computes these the way JavaScript does; a server in
another language conforms when it reproduces the observable results. tests/test_core_js.py checks each against
node itself.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Final, TypeGuard

from conformance.core.jsontypes import JSON, Omitted

MAX_SAFE_INTEGER: Final = 2**53 - 1
MAX_ARRAY_INDEX: Final = 2**32 - 2
"""The largest integer-like key JavaScript orders numerically in Object.keys (an array index)."""

PROTOTYPE_KEYS: Final[tuple[str, ...]] = (
    "__proto__",
    "constructor",
    "toString",
    "valueOf",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
)
"""Keys every plain JavaScript object already answers for (inherited from Object.prototype)."""


def is_number(value: JSON | Omitted) -> TypeGuard[int | float]:
    """`typeof value === 'number'` for a JSON value."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def js_truthy(value: JSON | Omitted) -> bool:
    """JavaScript truthiness; a missing key reads as undefined (falsy)."""
    if isinstance(value, Omitted) or value is None:
        return False
    if isinstance(value, list | dict):
        return True
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)


def js_double(value: int | float) -> float:
    """The double JavaScript's JSON.parse makes of a JSON number (huge integers become Infinity)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


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


def utf16_length(text: str) -> int:
    """String.prototype.length: UTF-16 code units (a lone surrogate is one, as in JavaScript)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


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
