"""What a server lists beyond the tool, read: each resource a `resources` capability lists read (and each
resource template, its variables filled with 1), and each prompt a `prompts` capability lists got. The
original declares neither; a fork serving its history there is a route to a stored thought the guessed uris
never reach (ABS-2, held-out-multi-15's fork-protocol-upgrade). The listing is the server's data: bounded to
`LISTED_MAX` each. Shared by ABS-2's check and compare's `offered.py`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from conformance.core.jsontypes import JSON
from conformance.drivers.wire import Exchange, WireDriver

LISTED_MAX: Final = 5
"""Items read per listing: enough for a fork's few, bounded against a flood."""

NAME_CHARS: Final = 200
"""A listed name or uri as said: the server's words, cut."""

_TEMPLATE_VARIABLE: Final = re.compile(r"\{[^{}]{0,100}\}")


@dataclass(frozen=True)
class ListedRead:
    """One request about what a server lists: a listing (`name` empty) or one listed item's read."""

    noun: str
    """`resources/list`, `resources/templates/list`, `prompts/list`, or what was read: `resource`,
    `resource template`, `prompt`."""
    name: str
    exchange: Exchange

    def said(self) -> str:
        """The request as a sentence's subject: the resource 'thoughts://history' the server lists, read,."""
        if not self.name:
            return f"the {self.noun} answer"
        return f"the {self.noun} {self.name[:NAME_CHARS]!r} the server lists, read,"


_LISTINGS: Final = (
    ("resources", "resources/list", "resources", "uri", "resource", "resources/read", "uri"),
    ("resources", "resources/templates/list", "resourceTemplates", "uriTemplate", "resource template",
     "resources/read", "uri"),
    ("prompts", "prompts/list", "prompts", "name", "prompt", "prompts/get", "name"),
)


def listed_reads(driver: WireDriver) -> list[ListedRead]:
    """Each listing a declared capability offers and each listed item's read; nothing when initialize
    declares neither `resources` nor `prompts`, as the original's does."""
    initialized = driver.initialize_result or {}
    capabilities = initialized.get("capabilities")
    declared = capabilities if isinstance(capabilities, dict) else {}
    out: list[ListedRead] = []
    for capability, listing_method, field, key, noun, method, param in _LISTINGS:
        if capability not in declared:
            continue
        listing = driver.request(listing_method, {})
        out.append(ListedRead(listing_method, "", listing))
        items = (listing.result or {}).get(field)
        for item in items[:LISTED_MAX] if isinstance(items, list) else []:
            name = item.get(key) if isinstance(item, dict) else None
            if not isinstance(name, str):
                continue
            asked = _TEMPLATE_VARIABLE.sub("1", name) if noun == "resource template" else name
            params: dict[str, JSON] = {param: asked}
            out.append(ListedRead(noun, name, driver.request(method, params)))
    return out


__all__ = ["LISTED_MAX", "ListedRead", "listed_reads"]
