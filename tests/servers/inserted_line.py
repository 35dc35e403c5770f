"""The reference server with one line inserted into its tool description: `inserted_line.py AT TEXT` puts
TEXT before the description's line AT (0-based), every other line the original's (held-out-multi-12's
fork-paged-history added a Key features item this way)."""

from __future__ import annotations

import dataclasses
import sys

from reference_server import toolspec

AT, TEXT = int(sys.argv[1]), sys.argv[2]
_captured = toolspec.load_tool_spec


def load_tool_spec() -> toolspec.ToolSpec:
    spec = _captured()
    lines = spec.description.split("\n")
    return dataclasses.replace(spec, description="\n".join([*lines[:AT], TEXT, *lines[AT:]]))


toolspec.load_tool_spec = load_tool_spec

from reference_server.__main__ import main  # noqa: E402  (after the capture is wrapped)

main()
