"""The original's four guards (RTE-3): which fields it checks, in the record's order, and the words it refuses
with. Shared by the suite (what a check expects) and the gate (which refusal words are the original's own)."""

from __future__ import annotations

from typing import Final

from conformance.core.js import is_number, js_truthy
from conformance.core.jsontypes import JSON

GUARDED_ORDER: Final[tuple[str, ...]] = ("thought", "thoughtNumber", "totalThoughts", "nextThoughtNeeded")
"""RTE-3's four checks, in the order the record lists them."""
GUARD_REFUSALS: Final[dict[str, str]] = {
    "thought": "Invalid thought: must be a string",
    "thoughtNumber": "Invalid thoughtNumber: must be a number",
    "totalThoughts": "Invalid totalThoughts: must be a number",
    "nextThoughtNeeded": "Invalid nextThoughtNeeded: must be a boolean",
}
"""The original's words when each guard refuses (isError): what a failure quotes as the original's refusal."""


def guard_failure(arguments: dict[str, JSON]) -> str | None:
    """The first required field RTE-3/RTE-3a1's guards reject, or None when the call passes validation: the
    suite's expectation, and the gate's test of a call the original refuses whatever it was asked before.

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
