"""The argument a refusal is about when its words name none but say the type it wanted and the one it got
(“Invalid input: expected string, received boolean”): found from the refused call's own arguments, never
guessed. Issue 42: npm:2025.11.25-like refusals named no field, where the call held one boolean argument.

The call and the served schema are hostile data: only JSON types are compared, and a schema is read no
deeper than its properties' `type`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

_TYPES_SAID: Final = re.compile(
    r"\b[Ee]xpected (?:a |an )?(string|number|integer|boolean|object|array|null), (?:received|got|but got) "
    r"(?:a |an )?(string|number|integer|boolean|object|array|null|undefined)\b")
"""A schema library's type mismatch (zod's “expected string, received boolean”, a like phrase)."""
_MAX_ARGUMENTS: Final = 200
"""More arguments than this are not searched: a call that large names its field some other way or not."""


def json_type(value: object) -> str:
    """A value's JSON type as a schema library says it (`integer` is a `number` too)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else ""


def _typed_as(schema: object, wanted: str) -> bool:
    """Whether a property's schema types it as `wanted` (`integer` counts as `number`)."""
    if not isinstance(schema, Mapping):
        return False
    declared = schema.get("type")
    names = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
    said = {"number" if n == "integer" else n for n in names if isinstance(n, str)}
    return ("number" if wanted == "integer" else wanted) in said


def field_by_type(words: str, arguments: object, properties: object = None) -> tuple[str, str]:
    """The argument a type refusal is about and how it was found, or ("", "") when its words say no types
    or not exactly one argument fits: the only argument of the received type, else the only one of them the
    served schema types as the expected type. Two candidates left: none."""
    said = _TYPES_SAID.search(words)
    if said is None or not isinstance(arguments, Mapping) or len(arguments) > _MAX_ARGUMENTS:
        return "", ""
    expected, received = said.groups()
    got = [str(k) for k, v in arguments.items() if json_type(v) == received]
    if len(got) == 1:
        return got[0], f"the only {received} argument"
    typed = [k for k in got if isinstance(properties, Mapping) and _typed_as(properties.get(k), expected)]
    if len(typed) == 1:
        return typed[0], f"the only {received} argument the served schema types as {expected}"
    return "", ""
