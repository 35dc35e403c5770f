"""The reference server with only its tool description's line ends and trailing whitespace changed:
`described.py ENDS PADS`, a letter for each line: ENDS how each line but the last ends (w "\\r\\n",
r "\\r", n "\\n"), PADS the whitespace put after its content (- none, s a space, t a tab, d two
spaces). The words are the original's; the spec differs from it byte for byte (CMP-2), every content
check holds (issues 42, 47)."""

from __future__ import annotations

import dataclasses
import sys

from reference_server import toolspec

ENDS = [{"w": "\r\n", "r": "\r", "n": "\n"}[letter] for letter in sys.argv[1]]
PADS = [{"-": "", "s": " ", "t": "\t", "d": "  "}[letter] for letter in sys.argv[2]]
_captured = toolspec.load_tool_spec


def load_tool_spec() -> toolspec.ToolSpec:
    spec = _captured()
    lines = spec.description.split("\n")
    assert len(ENDS) == len(lines) - 1 and len(PADS) == len(lines), "one end per line break, one pad per line"
    text = "".join(line + pad + end for line, pad, end in zip(lines, PADS, [*ENDS, ""], strict=True))
    return dataclasses.replace(spec, description=text)


toolspec.load_tool_spec = load_tool_spec

from reference_server.__main__ import main  # noqa: E402  (after the capture is wrapped)

main()
