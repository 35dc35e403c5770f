"""The original's four guards (RTE-3): which fields it checks, in the record's order, and the words it refuses
with. Shared by the suite (what a check expects) and the gate (which refusal words are the original's own)."""

from __future__ import annotations

from typing import Final

GUARDED_ORDER: Final[tuple[str, ...]] = ("thought", "thoughtNumber", "totalThoughts", "nextThoughtNeeded")
"""RTE-3's four checks, in the order the record lists them."""
GUARD_REFUSALS: Final[dict[str, str]] = {
    "thought": "Invalid thought: must be a string",
    "thoughtNumber": "Invalid thoughtNumber: must be a number",
    "totalThoughts": "Invalid totalThoughts: must be a number",
    "nextThoughtNeeded": "Invalid nextThoughtNeeded: must be a boolean",
}
"""The original's words when each guard refuses (isError): what a failure quotes as the original's refusal."""
