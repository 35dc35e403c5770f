"""The tool the original lists, as captured from it over the wire (data/tool_spec.json).

The description and input schema are upstream's text, not ours: scripts/capture_tool_spec.py
records them from npm:0.6.2 together with their provenance and the upstream licence notice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

SERVER_NAME: Final = "sequential-thinking-server"
SERVER_VERSION: Final = "0.2.0"
"""What the original's `new Server({...})` reports; 0.2.0 while the package is 0.6.2 (CMP-3/a1)."""

TOOL_NAME: Final = "sequentialthinking"
BANNER: Final = b"Sequential Thinking MCP Server running on stdio\n"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]
    provenance: dict[str, Any]
    license: str


def load_tool_spec() -> ToolSpec:
    """Read the packaged capture; raises if the file is missing or not the captured shape."""
    raw = resources.files("reference_server").joinpath("data/tool_spec.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    tool = data["tool"]
    return ToolSpec(
        name=tool["name"],
        description=tool["description"],
        input_schema=tool["inputSchema"],
        provenance=data["provenance"],
        license=data["license"],
    )
