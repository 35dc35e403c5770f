"""What a server lists beyond the tool, read: each resource a `resources` capability lists read, and each
prompt a `prompts` capability lists got. The original declares neither; a fork serving its history there
is a route to a stored thought the guessed uris never reach (ABS-2, held-out-multi-15's
fork-protocol-upgrade). The listing is the server's data: bounded to `LISTED_MAX` each."""

from __future__ import annotations

from typing import Final

from conformance.core.jsontypes import JSON
from conformance.drivers.wire import Exchange, WireDriver

LISTED_MAX: Final = 5
"""Resources (and prompts) read per listing: enough for a fork's few, bounded against a flood."""

_WHAT: Final = (
    ("resources", "resources/read", "uri", "resource"),
    ("prompts", "prompts/get", "name", "prompt"),
)


def listed_reads(driver: WireDriver) -> list[tuple[str, Exchange]]:
    """Each listed resource's read and prompt's get, with what it is (`resource thoughts://history`); none
    when initialize declares neither capability, as the original's does."""
    initialized = driver.initialize_result or {}
    capabilities = initialized.get("capabilities")
    declared = capabilities if isinstance(capabilities, dict) else {}
    out: list[tuple[str, Exchange]] = []
    for capability, method, key, noun in _WHAT:
        if capability not in declared:
            continue
        listing = driver.request(f"{capability}/list", {})
        out.append((f"the {capability}/list answer", listing))
        items = (listing.result or {}).get(capability)
        for item in items[:LISTED_MAX] if isinstance(items, list) else []:
            name = item.get(key) if isinstance(item, dict) else None
            if isinstance(name, str):
                params: dict[str, JSON] = {key: name}
                read = driver.request(method, params)
                out.append((f"the {noun} {name[:200]!r} the server lists, read,", read))
    return out


__all__ = ["LISTED_MAX", "listed_reads"]
