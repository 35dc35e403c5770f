"""The words every room uses to speak to the server under test: its one tool, the protocol version, who calls,
and a call every record says is accepted."""

from __future__ import annotations

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
