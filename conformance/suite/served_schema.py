"""What a schema-validating host would send (OBJ-7 as served by the original), to tell the records about
the adversarial caller's reach from those about any accepted call."""

from __future__ import annotations

from conformance.core.js import MAX_SAFE_INTEGER
from conformance.core.jsontypes import JSON

_REQUIRED = ("thought", "nextThoughtNeeded", "thoughtNumber", "totalThoughts")
_INTEGERS = ("thoughtNumber", "totalThoughts", "revisesThought", "branchFromThought")
_BOOLEANS = ("nextThoughtNeeded", "isRevision", "needsMoreThoughts")
_STRINGS = ("thought", "branchId")


def schema_valid(arguments: dict[str, JSON]) -> bool:
    """Whether `arguments` conforms to the served inputSchema (integers >= 1, declared types, required
    set) - integers also within JavaScript's safe range, which a validating client may insist on."""
    if any(name not in arguments for name in _REQUIRED):
        return False
    for name in _INTEGERS:
        if name in arguments:
            value = arguments[name]
            if isinstance(value, bool) or not isinstance(value, int | float):
                return False
            if value != int(value) or not 1 <= value <= MAX_SAFE_INTEGER:
                return False
    for name in _BOOLEANS:
        if name in arguments and not isinstance(arguments[name], bool):
            return False
    return all(isinstance(arguments[name], str) for name in _STRINGS if name in arguments)
