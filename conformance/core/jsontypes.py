"""The JSON value type the drivers speak, and the sentinel telling "omit this key" from an explicit null."""

from __future__ import annotations

import enum
import json
from typing import Final, TypeAlias

JSON: TypeAlias = bool | int | float | str | list["JSON"] | dict[str, "JSON"] | None


class Omitted(enum.Enum):
    """Marks a field that is left out of a message, which the adversarial caller must tell apart from null."""

    OMIT = "OMIT"

    def __repr__(self) -> str:
        return "OMIT"

    def __bool__(self) -> bool:
        return False


OMIT: Final = Omitted.OMIT


def json_object(text: str) -> dict[str, JSON] | None:
    """A frame's text read as a JSON object, else None: what a server sends may be anything."""
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None
