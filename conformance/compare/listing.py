"""A listed tool's change in words: texts as a line and word diff, schemas and annotations key by key.

A reviewer reading "`description` differs" cannot tell a one-word typo fix from a 29-line trim; these say
which lines (and which item of which list) changed, which words, and how many lines went or came, and for
a schema every `required`, type, enum and property change by name. Each change is one clause; the
caller folds them (`fold`), so the short form and the full form come from the same list.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from conformance.core.differences import WHOLE_CHARS
from conformance.core.jsontypes import JSON
from conformance.core.words import first_and_more

QUOTED: Final = 60
"""Characters of a line quoted in a clause before it is cut (at a word)."""
SHOWN_LINES: Final = 3
"""Lines quoted from a block of removed or added lines in the short form."""
_ITEM: Final = re.compile(r"^\s*(?:(\d+)[.)]|[-*•])\s+")


def quote(text: str, width: int = QUOTED) -> str:
    """A line in curly quotes, whole up to `WHOLE_CHARS` (200), else cut at a word boundary with "…" near
    `width`."""
    text = " ".join(text.split())
    if len(text) > max(width, WHOLE_CHARS):
        cut = text[: width - 1]
        space = cut.rfind(" ")
        text = (cut[:space] if space > width // 2 else cut).rstrip(" ,;:") + "…"
    return f"“{text}”"


def _where(lines: Sequence[str], index: int) -> str:
    """Where a line of a text sits, for a reader: "line 48, item 11 of “You should:”"."""
    here = f"line {index + 1}"
    line = lines[index] if index < len(lines) else ""
    item = _ITEM.match(line)
    if item is None:
        return here
    heading = next((i for i in range(index - 1, -1, -1)
                    if lines[i].strip().endswith(":") and _ITEM.match(lines[i]) is None), None)
    if item.group(1) is not None:
        number = item.group(1)
    else:
        start = heading + 1 if heading is not None else 0
        indent = len(line) - len(line.lstrip())
        number = str(sum(1 for x in lines[start:index + 1]
                         if _ITEM.match(x) and len(x) - len(x.lstrip()) == indent))
    under = f" of {quote(lines[heading].strip(), 40)}" if heading is not None else ""
    return f"{here}, item {number}{under}"


def _words(a: str, b: str) -> str:
    """The words one line's two versions differ in: "“truly” → “really”", "adds “not”", "drops “very”"."""
    wa, wb = a.split(), b.split()
    said: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=wa, b=wb, autojunk=False).get_opcodes():
        gone, came = " ".join(wa[i1:i2]), " ".join(wb[j1:j2])
        if op == "replace":
            said.append(f"{quote(gone, 40)} → {quote(came, 40)}")
        elif op == "delete":
            said.append(f"drops {quote(gone, 40)}")
        elif op == "insert":
            said.append(f"adds {quote(came, 40)}")
    return ", ".join(said) if said else "whitespace only"


@dataclass(frozen=True)
class TextChange:
    """One block of a text diff: lines removed, added, or one line reworded."""

    clause: str
    lines: int


def text_changes(a: str, b: str, lb: str, quoted: int | None = SHOWN_LINES) -> list[TextChange]:
    """Line by line (difflib), each block of changed lines one clause quoting up to `quoted` of its lines
    (None: all); a line replaced by one line is said word by word."""
    la, lines_b = a.split("\n"), b.split("\n")
    out: list[TextChange] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=la, b=lines_b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                if la[i1 + k] != lines_b[j1 + k]:
                    words = _words(la[i1 + k], lines_b[j1 + k])
                    out.append(TextChange(f"{_where(la, i1 + k)}: {words} on {lb}", 1))
            continue
        if i2 > i1:
            out.append(TextChange(_block("removed", la, i1, i2, lb, quoted), i2 - i1))
        if j2 > j1:
            out.append(TextChange(_block("added", lines_b, j1, j2, lb, quoted), j2 - j1))
    return out


def _block(verb: str, lines: Sequence[str], i1: int, i2: int, lb: str, quoted: int | None) -> str:
    """ "29 lines removed (lines 24–52): “Parameters explained:”, “- thought: …” and 27 more"."""
    shown = [quote(x) for x in lines[i1:i2] if x.strip()]
    n = i2 - i1
    span = f"line {i1 + 1}" if n == 1 else f"lines {i1 + 1}–{i2}"
    what = f"{n} line{'s' if n != 1 else ''} {verb} on {lb} ({span})"
    if not shown:
        return f"{what}: blank"
    return f"{what}: {_listed(shown, quoted)}"


def _listed(items: Sequence[str], most: int | None) -> str:
    return first_and_more(items, len(items) if most is None else most, last=" and ")


_SNAKE: Final = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_PUNCT: Final = "`'\"*:,.;()[]{}"


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _renames(a: str, b: str) -> list[tuple[str, str]] | None:
    """The snake_case → camelCase renames that are a line's only change (None when anything else changed
    too, or nothing was renamed)."""
    wa, wb = a.split(), b.split()
    found: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=wa, b=wb, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op != "replace" or i2 - i1 != j2 - j1:
            return None
        for gone, came in zip(wa[i1:i2], wb[j1:j2], strict=True):
            g, c = gone.strip(_PUNCT), came.strip(_PUNCT)
            if not _SNAKE.fullmatch(g) or _camel(g) != c or gone.replace(g, c) != came:
                return None
            found.append((g, c))
    return found or None


def _renamed(a: str, b: str, lb: str) -> tuple[str, set[int]]:
    """The text's snake_case → camelCase renames said first, as their substance ("8 parameter names moved
    from snake_case to camelCase on B (…); `x_y` still on line 40"), and the lines of `a` they account
    for."""
    la, lines_b = a.split("\n"), b.split("\n")
    pairs: dict[str, str] = {}
    lines: set[int] = set()
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=la, b=lines_b, autojunk=False).get_opcodes():
        if op != "replace" or i2 - i1 != j2 - j1:
            continue
        for k in range(i2 - i1):
            found = _renames(la[i1 + k], lines_b[j1 + k])
            if found:
                lines.add(i1 + k)
                pairs.update(found)
    if not pairs:
        return "", set()
    shown = first_and_more([f"`{g}` → `{c}`" for g, c in pairs.items()], SHOWN_LINES)
    n = len(pairs)
    said = f"{n} name{'s' if n != 1 else ''} moved from snake_case to camelCase on {lb} ({shown})"
    left = [(g, i + 1) for i, line in enumerate(lines_b) for g in pairs
            if re.search(rf"(?<![A-Za-z0-9_]){re.escape(g)}(?![A-Za-z0-9_])", line)]
    if left:
        where = first_and_more([f"`{g}` on line {n}" for g, n in left], SHOWN_LINES)
        verb = "mentions remain" if len(left) != 1 else "mention remains"
        said += f"; {len(left)} snake_case {verb} ({where})"
    return said, lines


def describe_text(a: str, b: str, lb: str, *, most: int | None = 3) -> str:
    """A text's change in words, substance first: snake_case names moved to camelCase (and what still says
    snake_case), then the other blocks (folded after `most`: "and 4 more changes"), and lines changed in
    whitespace only last, counted; `most=None` says every block."""
    renamed, renamed_lines = _renamed(a, b, lb)
    changes = text_changes(a, b, lb, SHOWN_LINES if most is not None else None)
    if not changes:
        return "whitespace only"
    spacing = [c for c in changes if c.lines == 1 and "whitespace only" in c.clause]
    renames = [c for c in changes if c.lines == 1 and c not in spacing and _is_rename(c, renamed_lines)]
    rest = [c for c in changes if c not in spacing and c not in renames]
    shown = rest if most is None else rest[:most]
    said = [renamed] if renamed else []
    said += [c.clause for c in shown]
    if len(rest) > len(shown):
        n = len(rest) - len(shown)
        said.append(f"and {n} more change{'s' if n > 1 else ''}")
    if spacing:
        n = len(spacing)
        said.append(f"{n} line{'s' if n != 1 else ''} changed in whitespace only on {lb}")
    return "; ".join(said)


def _is_rename(change: TextChange, lines: set[int]) -> bool:
    """Whether a one-line clause is one of the renamed lines (its clause opens with "line N")."""
    found = re.match(r"line (\d+)", change.clause)
    return found is not None and int(found.group(1)) - 1 in lines


# -- schemas, annotations and other listed objects, key by key -------------------------------------------


def _show(value: JSON) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= WHOLE_CHARS else quote(text, 40)


def _items(values: Sequence[JSON]) -> str:
    return ", ".join(f"`{v}`" if isinstance(v, str) else _show(v) for v in values)


def _property_type(schema: JSON) -> str:
    """A property's declared type in a word or two ("boolean", "integer ≥ 1", "boolean or string")."""
    if not isinstance(schema, dict):
        return "any value"
    kind = schema.get("type")
    if isinstance(kind, list):
        said = " or ".join(str(k) for k in kind)
    elif isinstance(kind, str):
        said = kind
    elif isinstance(schema.get("anyOf"), list):
        said = " or ".join(_property_type(s) for s in schema["anyOf"])  # type: ignore[union-attr]
    else:
        said = "any value"
    if "minimum" in schema:
        said += f" ≥ {schema['minimum']}"
    if isinstance(schema.get("enum"), list):
        said += f" in {_show(schema['enum'])}"
    return said


def object_changes(a: JSON, b: JSON, lb: str, path: str = "") -> list[str]:
    """Every change between two listed objects, one clause each, said by name: a list (`required`, `enum`)
    by the items it adds and drops, a property by its type, a long text by its words, a value by its two
    values."""
    name = f"`{path}`" if path else "it"
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        keys = [*a, *(k for k in b if k not in a)]
        # `required` first: what a caller must send is the change a cut headline must never hide.
        for key in sorted(keys, key=lambda k: k != "required"):
            here = f"{path}.{key}" if path else key
            if key not in b:
                out.append(f"{lb} drops {_member(here, a[key])}")
            elif key not in a:
                out.append(f"{lb} adds {_member(here, b[key])}")
            elif a[key] != b[key]:
                out += object_changes(a[key], b[key], lb, here)
        return out
    if isinstance(a, list) and isinstance(b, list) and all(not isinstance(x, dict | list) for x in [*a, *b]):
        added, dropped = [x for x in b if x not in a], [x for x in a if x not in b]
        said = []
        if added:
            said.append(f"adds {_items(added)}")
        if dropped:
            said.append(f"drops {_items(dropped)}")
        if not said:
            said.append("reorders its items")
        return [f"{name} on {lb} " + " and ".join(said)]
    if isinstance(a, str) and isinstance(b, str) and (len(a) > 40 or len(b) > 40 or "\n" in a + b):
        return [f"{name}: {describe_text(a, b, lb, most=2)}"]
    parts = path.split(".")
    if len(parts) >= 3 and parts[-3] == "properties" and parts[-1] == "type":
        return [f"`{parts[-2]}`'s type changes from {_type(a)} to {_type(b)} on {lb}"]
    return [f"{name} changes from {_show(a)} to {_show(b)} on {lb}"]


def _type(kind: JSON) -> str:
    return " or ".join(str(k) for k in kind) if isinstance(kind, list) else str(kind)


def _member(path: str, value: JSON) -> str:
    """A key added or dropped: a property with its type and whether it is required."""
    parts = path.split(".")
    if len(parts) >= 2 and parts[-2] == "properties":
        return f"the property `{parts[-1]}` ({_property_type(value)})"
    return f"`{path}` ({_show(value)})"


def describe_tool(tool: JSON) -> str:
    """A listed tool by name with its schema: "`reset` (properties: `keepBranches` boolean, optional)"."""
    if not isinstance(tool, dict):
        return _show(tool)
    name = f"`{tool.get('name')}`"
    schema = tool.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    required = schema.get("required", []) if isinstance(schema, dict) else []
    if not isinstance(props, dict) or not props:
        return f"{name} (no arguments)"
    needed = required if isinstance(required, list) else []
    fields = [f"`{k}` {_property_type(v)}{'' if k in needed else ', optional'}" for k, v in props.items()]
    return f"{name} ({'; '.join(fields)})"


__all__ = ["TextChange", "describe_text", "describe_tool", "object_changes", "quote", "text_changes"]
