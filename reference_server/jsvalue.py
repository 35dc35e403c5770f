"""The JavaScript semantics the TypeScript original runs on, for every value a JSON frame can carry.

The original is judged by what V8 (node 20) does with `JSON.parse` output: truthiness, `typeof`,
`String()` inside template literals, property keys on a plain object used as a map, `Object.keys`
order, `JSON.stringify`, lengths in UTF-16 code units, and the exception texts. Values are the
Python objects `json.loads` yields (`int` and `float` both stand for a JS number, a double) plus
`UNDEFINED` for a missing property. Each rule is pinned by a test in tests/e2e/test_jsvalue.py, most of
them against a real node process (those needing none: tests/fast/test_jsvalue_rules.py).
"""

from __future__ import annotations

import math
import re
from bisect import insort
from collections.abc import Iterator
from typing import Final, TypeAlias, final

MAX_STRING_LENGTH: Final = (1 << 29) - 24
"""V8's String::kMaxLength on 64-bit (node 20: `buffer.constants.MAX_STRING_LENGTH`, 536870888)."""

MAX_ARRAY_INDEX: Final = (1 << 32) - 2
"""The largest array index; integer keys up to it come first, ascending, in `Object.keys`."""

STACK_DEPTH_LIMIT: Final = 3164
"""Array nesting depth from which `String(array)` is modelled as V8's stack overflow.

V8 recurses once per nesting level when it joins nested arrays. Measured through the original on
node 20.20 (default stack): a first call overflows from 3161 levels, a warm process from 3164, and
after thousands of calls from 3166, as the JIT shrinks the frames above the join. The reference
overflows from 3164 on; nesting in 3161..3165 is the documented band where the two can differ
(docs/reference-server.md)."""

OBJECT_PROTOTYPE_KEYS: Final = frozenset(
    {
        "constructor",
        "__defineGetter__",
        "__defineSetter__",
        "hasOwnProperty",
        "__lookupGetter__",
        "__lookupSetter__",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "toString",
        "valueOf",
        "__proto__",
        "toLocaleString",
    }
)
"""`Object.getOwnPropertyNames(Object.prototype)` on node 20: present on every plain object."""


@final
class Undefined:
    """JavaScript's `undefined`: what reading a missing property yields."""

    _instance: Undefined | None = None

    def __new__(cls) -> Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Final = Undefined()

JSValue: TypeAlias = "bool | int | float | str | list[JSValue] | dict[str, JSValue] | Undefined | None"
"""A value as the original sees it: a parsed JSON value, or `undefined`."""


class JSError(Exception):
    """An exception the original throws; `message` is the text its `catch` returns."""

    js_name: str = "Error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class JSTypeError(JSError):
    js_name = "TypeError"


class JSRangeError(JSError):
    js_name = "RangeError"


CANNOT_CONVERT: Final = "Cannot convert object to primitive value"
INVALID_STRING_LENGTH: Final = "Invalid string length"
STACK_OVERFLOW: Final = "Maximum call stack size exceeded"


def cannot_read(base: JSValue, key: str) -> JSTypeError:
    """The TypeError V8 throws for `base.key` when base is undefined or null."""
    what = "undefined" if base is UNDEFINED else "null"
    return JSTypeError(f"Cannot read properties of {what} (reading '{key}')")


def not_a_function(expression: str) -> JSTypeError:
    """The TypeError V8 throws when calling a non-callable; V8 quotes the call site's source text."""
    return JSTypeError(f"{expression} is not a function")


# -- numbers ---------------------------------------------------------------------------------------


def to_double(value: int | float) -> float:
    """The double JSON.parse yields for a number literal (Python keeps integers exact; V8 cannot)."""
    if type(value) is float:
        return value
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


_EXACT_INTEGERS: Final = float(1 << 53)
"""Up to 2**53 every integer is a double, so its decimal digits are also the shortest round-trip ones."""


def number_to_string(x: float) -> str:
    """Number::toString(x): shortest round-trip digits, exponent form outside 1e-7 < |x| < 1e21."""
    if -_EXACT_INTEGERS <= x <= _EXACT_INTEGERS and x == int(x):
        return str(int(x))  # the common case (thought numbers): exact digits are the shortest; -0 is "0"
    if x != x:
        return "NaN"
    if x < 0:
        return "-" + number_to_string(-x)
    if x == math.inf:
        return "Infinity"
    mantissa, _, exponent = repr(x).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    digits = int_part + frac_part
    n = len(int_part) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    if k == 1:
        return f"{digits}e{sign}{abs(e)}"
    return f"{digits[0]}.{digits[1:]}e{sign}{abs(e)}"


def json_number(x: float) -> str:
    """JSON.stringify of a number: non-finite values become null."""
    if x != x or x in (math.inf, -math.inf):
        return "null"
    return number_to_string(x)


# -- type tests ------------------------------------------------------------------------------------


def typeof(value: JSValue) -> str:
    """The `typeof` operator."""
    if value is UNDEFINED:
        return "undefined"
    kind = type(value)
    if kind is str:
        return "string"
    if kind is bool:
        return "boolean"
    if kind is int or kind is float:
        return "number"
    return "object"


def truthy(value: JSValue) -> bool:
    """ToBoolean: false for undefined, null, false, 0, -0, NaN and ""; true for every object and array."""
    kind = type(value)
    if kind is str:
        return value != ""
    if kind is bool:
        return value is True
    if kind is float:
        return value == value and value != 0.0
    if kind is int:
        return value != 0
    return kind is list or kind is dict


# -- strings ---------------------------------------------------------------------------------------


def utf16_len(text: str) -> int:
    """`.length`: UTF-16 code units (an astral character counts two, a lone surrogate one)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) >> 1


def to_string(value: JSValue) -> str:
    """ToString as a template literal applies it (ToPrimitive with hint string for objects).

    Arrays join their elements with "," (null and undefined as ""), iteratively so that nesting is
    bounded by `STACK_DEPTH_LIMIT` rather than by Python's recursion limit. A plain object is
    "[object Object]" unless it has an own "toString" key: in JSON that value is never callable,
    and `valueOf` returns the object itself, so V8 throws.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return _join(value)
    return _primitive_string(value)


def _primitive_string(value: JSValue) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return number_to_string(to_double(value))
    if value is None:
        return "null"
    if isinstance(value, Undefined):
        return "undefined"
    if isinstance(value, dict):
        if "toString" in value:
            raise JSTypeError(CANNOT_CONVERT)
        return "[object Object]"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _join(array: list[JSValue]) -> str:
    """Array.prototype.join(",") applied recursively, as Array.prototype.toString does."""
    parts: list[str] = []
    length = 0
    stack: list[Iterator[JSValue]] = [iter(array)]
    first: list[bool] = [True]
    while stack:
        if len(stack) >= STACK_DEPTH_LIMIT:
            raise JSRangeError(STACK_OVERFLOW)
        element = next(stack[-1], _END)
        if isinstance(element, _End):
            stack.pop()
            first.pop()
            continue
        if first[-1]:
            first[-1] = False
        else:
            parts.append(",")
            length += 1
        if isinstance(element, list):
            stack.append(iter(element))
            first.append(True)
            continue
        if element is None or isinstance(element, Undefined):
            continue
        piece = _primitive_string(element)
        parts.append(piece)
        length += utf16_len(piece)
        if length > MAX_STRING_LENGTH:
            raise JSRangeError(INVALID_STRING_LENGTH)
    if length > MAX_STRING_LENGTH:
        raise JSRangeError(INVALID_STRING_LENGTH)
    return "".join(parts)


class _End:
    """Marks an exhausted array iterator."""


_END: Final = _End()


_JSON_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}
_NEEDS_ESCAPE: Final = re.compile('["\\\\\x00-\x1f\ud800-\udfff]')
_ESCAPE_OR_PAIR: Final = re.compile('[\ud800-\udbff][\udc00-\udfff]|["\\\\\x00-\x1f\ud800-\udfff]')


def _escape(match: re.Match[str]) -> str:
    text = match.group()
    if len(text) == 2:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    known = _JSON_ESCAPES.get(text)
    return known if known is not None else f"\\u{ord(text):04x}"


def json_quote(text: str) -> str:
    """JSON.stringify of a string (ES2019 well-formed: lone surrogates become \\udxxx escapes)."""
    if _NEEDS_ESCAPE.search(text) is None:
        return f'"{text}"'
    return '"' + _ESCAPE_OR_PAIR.sub(_escape, text) + '"'


def stringify(value: object) -> str:
    """JSON.stringify(value) without indentation, for the JSON values a frame carries: keys in insertion
    order (the SDK builds its envelopes in a fixed order), numbers as V8 writes them (an integer beyond
    2**53 as its double, from 1e21 in exponent form), strings escaped as V8 escapes them."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return json_number(to_double(value))
    if isinstance(value, str):
        return json_quote(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(stringify(item) for item in value) + "]"
    if isinstance(value, dict):
        members = (json_quote(str(key)) + ":" + stringify(item) for key, item in value.items())
        return "{" + ",".join(members) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def utf8_bytes(text: str) -> bytes:
    """The bytes node writes for a string on a utf8 stream: a lone surrogate becomes U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode("utf-8")


# -- plain objects as maps -------------------------------------------------------------------------


_ARRAY_INDEX: Final = re.compile(r"0|[1-9][0-9]{0,9}", re.ASCII)


def array_index(key: str) -> int | None:
    """The array index a property key names (canonical decimal, 0 .. 2**32-2), else None."""
    if _ARRAY_INDEX.fullmatch(key) is None:
        return None
    index = int(key)
    return index if index <= MAX_ARRAY_INDEX else None


@final
class InheritedMember:
    """A member of Object.prototype seen through a plain object: truthy, and never an array."""

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def __repr__(self) -> str:
        return f"InheritedMember({self.key!r})"


class PlainObject:
    """`{}` used as a string-keyed map of lists, as the original's `branches` is.

    Reading a key that is not own but is on Object.prototype yields that member (truthy, with no
    `push`); `keys()` is `Object.keys` order: array-index keys ascending, then the others in
    insertion order.
    """

    __slots__ = ("_index_keys", "_own", "_version")

    def __init__(self) -> None:
        self._own: dict[str, list[object]] = {}
        self._index_keys: list[int] = []
        self._version = 0

    def get(self, key: str) -> list[object] | InheritedMember | Undefined:
        """`object[key]` (the key already converted by ToPropertyKey)."""
        own = self._own.get(key)
        if own is not None:
            return own
        if key in OBJECT_PROTOTYPE_KEYS:
            return InheritedMember(key)
        return UNDEFINED

    def set(self, key: str, value: list[object]) -> None:
        """`object[key] = value` for an array value; creates an own data property."""
        if key == "__proto__":
            raise ValueError("assigning an array to __proto__ changes the prototype; not modelled")
        if key not in self._own:
            index = array_index(key)
            if index is not None:
                insort(self._index_keys, index)
            self._version += 1
        self._own[key] = value

    def keys(self) -> list[str]:
        """`Object.keys(object)`."""
        if not self._index_keys:
            return list(self._own)
        named = [key for key in self._own if array_index(key) is None]
        return [str(index) for index in self._index_keys] + named

    @property
    def version(self) -> int:
        """Bumped whenever `keys()` changes; lets a caller cache what it derives from the keys."""
        return self._version

    def __len__(self) -> int:
        return len(self._own)
