"""Reading the thought box a call rendered on stderr (OBJ-6), as far as the records describe it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from conformance.core.js import utf16_length
from conformance.drivers.transcript import decode

ANSI = re.compile(r"\x1b\[[0-9;]*m")
TOP = re.compile(r"┌(─+)┐")
CAPTION = re.compile(
    r"(?P<kind>Thought|Revision|Branch) (?P<number>[^/ ]+)/(?P<total>[^ ]+)(?P<context> \(.*\))?$", re.S
)


js_length = utf16_length


@dataclass(frozen=True)
class Box:
    """One rendered thought: the box's lines from its top border to its bottom border."""

    lines: tuple[str, ...]

    @property
    def header(self) -> str:
        """The caption line's text between the side borders, colours removed."""
        line = ANSI.sub("", self.lines[1])
        return line.removeprefix("│ ").removesuffix(" │")

    @property
    def caption(self) -> re.Match[str] | None:
        return CAPTION.search(self.header)

    @property
    def kind(self) -> str | None:
        found = self.caption
        return found.group("kind") if found else None

    @property
    def numbers(self) -> tuple[str, str] | None:
        found = self.caption
        return (found.group("number"), found.group("total")) if found else None

    @property
    def body(self) -> str:
        """The payload rows joined back together (a multi-line thought spans several)."""
        return "\n".join(self.lines[3:-1])

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def boxes(stderr: bytes) -> list[Box]:
    """Every box in a stretch of stderr, in order: a top border up to the bottom border of equal width."""
    lines = decode(stderr).split("\n")
    found: list[Box] = []
    index = 0
    while index < len(lines):
        top = TOP.fullmatch(lines[index])
        if top is None:
            index += 1
            continue
        bottom = f"└{top.group(1)}┘"
        end = next((j for j in range(index + 1, len(lines)) if lines[j] == bottom), None)
        if end is None:
            break
        found.append(Box(tuple(lines[index : end + 1])))
        index = end + 1
    return found


def only_box(stderr: bytes) -> Box:
    found = boxes(stderr)
    assert len(found) == 1, f"expected one rendered box on stderr, got {len(found)}: {decode(stderr)[:800]!r}"
    return found[0]
