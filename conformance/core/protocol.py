"""The words every room uses to speak to the server under test: its one tool, the protocol version, who calls,
and a call every record says is accepted."""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from conformance import __version__
from conformance.core.jsontypes import JSON

TOOL: Final = "sequentialthinking"
PROTOCOL_VERSION: Final = "2024-11-05"

CLIENT_NAME: Final = "seqthink-conformance"
CLIENT_VERSION: Final = __version__
CLIENT_INFO: Final[dict[str, JSON]] = {"name": CLIENT_NAME, "version": CLIENT_VERSION}
"""The `clientInfo` of every initialize the harness sends, raw or through the SDK."""

PROBE_ARGUMENTS: Final[Mapping[str, JSON]] = MappingProxyType({
    "thought": "conformance probe",
    "thoughtNumber": 1,
    "totalThoughts": 1,
    "nextThoughtNeeded": False,
})
"""A call every record says is accepted; its answer tells the current store size and branch labels."""

ARGUMENT_NAMES: Final = (
    "thought", "nextThoughtNeeded", "thoughtNumber", "totalThoughts", "isRevision", "revisesThought",
    "branchFromThought", "branchId", "needsMoreThoughts",
)
"""The original's argument names, as its inputSchema lists them (CMP-2): what `--arguments-map` respells."""


def _spellings(name: str) -> tuple[str, str]:
    """An argument name as the original spells it and in snake_case (`thought_number`)."""
    return name, re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_SPELLED: Final = frozenset(spelling for name in ARGUMENT_NAMES for spelling in _spellings(name))


def the_tool(tools: object) -> dict[str, JSON] | None:
    """The listed tool the checks read: the one named `TOOL`; on a fork that lists it under another name (a
    `think` still dispatching `sequentialthinking`), the tool whose inputSchema names the most of the
    original's arguments, in either spelling, else the only tool listed. The name itself is CMP-2's to judge;
    every other check reads the spec the server lists rather than finding nothing. None when no tool is."""
    listed = [tool for tool in tools if isinstance(tool, dict)] if isinstance(tools, list) else []
    named = next((tool for tool in listed if tool.get("name") == TOOL), None)
    if named is not None:
        return named
    best: tuple[int, dict[str, JSON] | None] = (0, None)
    for tool in listed:
        schema = tool.get("inputSchema")
        properties = schema.get("properties") if isinstance(schema, dict) else None
        shared = len(_SPELLED & {str(name) for name in properties}) if isinstance(properties, dict) else 0
        if shared > best[0]:
            best = (shared, tool)
    if best[1] is not None:
        return best[1]
    return listed[0] if len(listed) == 1 else None


def tool_name(tools: object) -> str:
    """The name the checks read the tool under (`the_tool`'s), `TOOL` when none is listed."""
    tool = the_tool(tools)
    name = tool.get("name") if tool is not None else None
    return name if isinstance(name, str) else TOOL
