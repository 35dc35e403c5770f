"""Where a shipped document (the README, the tool description) states what a record names, by content.

A record's expectation cites the original's line numbers and wordings as provenance; a check looks for
the content its statement names anywhere in the document, and says where it found it beside the verdict
("moved from line 12 to 11"), so a line that moved or a sentence reworded around the claim is a note, not
a departure (issue 47).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mcp_types import Tool

from conformance.core.protocol import tool_name
from conformance.core.words import first_and_more
from conformance.drivers.sdk import SdkDriver
from conformance.suite.contradiction import brief

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BREAK_NAMES = {"\r\n": "\\r\\n", "\r": "\\r", "\n": "\\n"}
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def content_lines(text: str) -> list[str]:
    """A document's lines as content: "\\r\\n", "\\r" and "\\n" each end a line, and trailing whitespace is
    no part of a line's content. A check judges what its record states; a line ending or trailing spaces
    are a byte-for-byte difference, CMP-2's, said by `line_endings` (issues 42, 47)."""
    return [line.rstrip() for line in _LINE_BREAK.split(text)]


def content_text(text: str) -> str:
    """The text with its line endings made "\\n" and its lines' trailing whitespace dropped."""
    return "\n".join(content_lines(text))


def line_endings(text: str) -> str:
    """How the text's lines end, when not as the original's ("\\n", no trailing whitespace); empty when they
    do: 'each line ends in \\r\\n', '53 lines end in \\r, 1 in \\n; 3 lines end in whitespace'."""
    ends = [_BREAK_NAMES[m.group()] for m in _LINE_BREAK.finditer(text)]
    counts = {name: ends.count(name) for name in dict.fromkeys(ends)}
    parts: list[str] = []
    if set(counts) - {"\\n"}:
        if len(counts) == 1:
            parts.append(f"each line ends in {ends[0]}")
        else:
            ordered = sorted(counts.items(), key=lambda item: -item[1])
            parts.append(", ".join(f"{_lines_end(n)} in {name}" if i == 0 else
                                   f"{n} in {name}" for i, (name, n) in enumerate(ordered)))
    trailing = sum(line != line.rstrip() for line in _LINE_BREAK.split(text))
    if trailing:
        parts.append(f"{_lines_end(trailing)} in whitespace")
    return "; ".join(parts)


def _lines_end(count: int) -> str:
    return "1 line ends" if count == 1 else f"{count} lines end"


def plain(line: str) -> str:
    """A line's words: its bullet or number, surrounding spaces and runs of spaces dropped."""
    return " ".join(_BULLET.sub("", line).split())


def lines_stating(lines: Sequence[str], words: str) -> list[int]:
    """The 1-based numbers of the lines whose words include `words` (bullets and spacing ignored)."""
    wanted = plain(words)
    return [number for number, line in enumerate(lines, start=1) if wanted in plain(line)]


def where(found: Sequence[int], cited: int | None) -> str:
    """Where a statement sits, beside where the records cite it: 'line 11 (moved from line 12)'."""
    if not found:
        return "absent" + (f" (the records cite line {cited})" if cited is not None else "")
    listed = ", ".join(str(n) for n in found)
    at = f"line {listed}" if len(found) < 4 else f"{len(found)} lines from {found[0]}"
    if cited is None or cited in found:
        return at
    return f"{at} (moved from line {cited})"


def headings(lines: Sequence[str]) -> list[tuple[int, str]]:
    """Markdown ATX headings outside fenced code, 1-based line number and text (backticks dropped)."""
    found: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match is not None:
            found.append((number, match.group(1).replace("`", "").strip()))
    return found


def section_under(lines: Sequence[str], heading: str) -> list[str]:
    """The lines after the first line whose words are `heading` (blank lines right after it skipped), up
    to the next blank line or heading; empty when no line is the heading."""
    wanted = plain(heading)
    start = next((i + 1 for i, line in enumerate(lines) if plain(line.lstrip("#")) == wanted), None)
    if start is None:
        return []
    while start < len(lines) and not lines[start].strip():
        start += 1
    end = next((i for i in range(start, len(lines))
                if not lines[i].strip() or _HEADING.match(lines[i])), len(lines))
    return list(lines[start:end])


def names_as_tool(lines: Sequence[str], name: str) -> list[int]:
    """Lines documenting `name` as a tool: a heading that is the name, or the name as a code span of its
    own (`` `name` ``) in prose. A name inside a path, a URL, a JSON key or a container image
    ("mcp/sequentialthinking") is not a tool's name."""
    at = [number for number, text in headings(lines) if text == name]
    fenced = False
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced and number not in at and name in _CODE_SPAN.findall(line):
            at.append(number)
    return sorted(at)


def other_mentions(lines: Sequence[str], name: str, limit: int = 3) -> str:
    """Where `name` appears otherwise (paths, keys, images), as provenance: 'also at lines 67, 73 (…)'."""
    tool = set(names_as_tool(lines, name))
    rest = [n for n, line in enumerate(lines, start=1) if name in line and n not in tool]
    if not rest:
        return ""
    shown = first_and_more([str(n) for n in rest], limit)
    first = brief(lines[rest[0] - 1].strip(), 60)
    return f"{name!r} also appears, not as a tool's name, at line(s) {shown} ({first})"


_PARAMETER_LINE = re.compile(r"^- ([A-Za-z_][A-Za-z0-9_]*):", flags=re.M)


def parameter_lines(description: str) -> list[str]:
    """The names a description documents as "- name:" lines, in either spelling, in order and once each."""
    return list(dict.fromkeys(_PARAMETER_LINE.findall(content_text(description))))


def documented_parameters(description: str, snake: Sequence[str]) -> str:
    """What a description's "- name:" lines document, said against the original's (thought and eight
    snake_case names): how many names, which, and how many in snake_case. A description spelling them in
    camelCase documents them all; it was said to document "1 parameter(s) (thought)" when only snake_case
    names were looked for (nalyk/sequentialthinking, reports/third-party/AUDIT.md)."""
    names = parameter_lines(description)
    shown = first_and_more(names, 10)
    in_snake = sum(name in snake for name in names)
    return (f"the description documents {len(names)} parameter(s) as \"- name:\" lines ({shown or 'none'}), "
            f"{in_snake} of them in snake_case, where the original documents thought and the eight "
            "snake_case names")


def delivered_tool(host: SdkDriver) -> Tool:
    """The tool as the official client hands it to a host, found by its name: a tool listed before or
    beside it is RTE-1's, never the one whose description or schema a check reads."""
    listed = host.list_tools().tools
    name = tool_name([{"name": tool.name, "inputSchema": tool.input_schema} for tool in listed])
    tools = [tool for tool in listed if tool.name == name]
    assert len(tools) == 1, f"the official client is handed {len(tools)} tools named {name}"
    return tools[0]


def delivered_description(host: SdkDriver) -> str:
    """The tool description as the official client hands it to a host."""
    return delivered_tool(host).description or ""
