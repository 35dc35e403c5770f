"""What differs between the original's answer and a target's, said at the field or the words that differ.

Shared by the suite (a check against the original's snapshot says what changed, not that it did) and the
gate (the replayed evidence of a departure): JSON answers are compared field by field, a text that is itself
a JSON object (a tool result's text block) inside it too, and texts word by word.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Final

from conformance.core.jsontypes import JSON

MAX_FIELDS: Final = 6
"""More differing fields than this are counted, not listed."""
_WORD: Final = re.compile(r"\s+|\w+|[^\w\s]")
_AMBER_KEY: Final = re.compile(r"^\s*'([^']*)': (?:dict\(\{|list\(\[|''\')$")


@dataclass(frozen=True)
class FieldDifference:
    """One field whose value differs: where (a dotted path), the original's value, the target's."""

    path: str
    original: str
    target: str

    def said(self, here: str = "here") -> str:
        return f"{self.path or 'the answer'}: {self.original} on the original, {self.target} {here}"


def _shown(value: JSON | None, missing: bool) -> str:
    if missing:
        return "absent"
    return json.dumps(value, ensure_ascii=False)


def _object_text(value: JSON | None) -> JSON | None:
    """A string holding a JSON object or array (a tool result's text), parsed; anything else, None."""
    if not isinstance(value, str) or not value.lstrip().startswith(("{", "[")):
        return None
    try:
        parsed: JSON = json.loads(value)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict | list) else None


def json_differences(original: JSON | None, target: JSON | None, path: str = "") -> list[FieldDifference]:
    """Every leaf where the two values differ, JSON texts inside strings compared as JSON."""
    if original == target:
        return []
    if isinstance(original, dict) and isinstance(target, dict):
        out: list[FieldDifference] = []
        for key in [*original, *(k for k in target if k not in original)]:
            sub = f"{path}.{key}" if path else key
            if key not in target:
                out.append(FieldDifference(sub, _shown(original[key], False), "absent"))
            elif key not in original:
                out.append(FieldDifference(sub, "absent", _shown(target[key], False)))
            else:
                out += json_differences(original[key], target[key], sub)
        if not out and list(original) != list(target):
            out.append(FieldDifference(path, "keys " + ", ".join(original), "keys " + ", ".join(target)))
        return out
    if isinstance(original, list) and isinstance(target, list) and len(original) == len(target):
        return [d for i, (a, b) in enumerate(zip(original, target, strict=True))
                for d in json_differences(a, b, f"{path}[{i}]")]
    inner_a, inner_b = _object_text(original), _object_text(target)
    if inner_a is not None and inner_b is not None:
        found = json_differences(inner_a, inner_b, f"{path} →" if path else "")
        if found:
            return [FieldDifference(d.path.replace("→.", "→ "), d.original, d.target) for d in found]
        return [FieldDifference(path, "the same JSON, written one way", "written another way")]
    if isinstance(original, str) and isinstance(target, str):
        return [FieldDifference(path, *word_difference(original, target))]
    return [FieldDifference(path, _shown(original, False), _shown(target, False))]


def word_difference(original: str, target: str, context: int = 3) -> tuple[str, str]:
    """The two texts cut to the words that differ, with a few words around: `… a [b] c …` each side."""
    a, b = _WORD.findall(original), _WORD.findall(target)
    blocks = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    changed = [op for op in blocks if op[0] != "equal"]
    if not changed:
        return json.dumps(original, ensure_ascii=False), json.dumps(target, ensure_ascii=False)
    first, last = changed[0], changed[-1]

    def cut(words: list[str], start: int, end: int) -> str:
        lo, hi = max(start - context, 0), min(end + context, len(words))
        text = "".join(words[lo:start]) + "[" + "".join(words[start:end]) + "]" + "".join(words[end:hi])
        inner = json.dumps(text, ensure_ascii=False)[1:-1]
        return ("…" if lo else "") + inner + ("…" if hi < len(words) else "")

    return f"“{cut(a, first[1], last[2])}”", f"“{cut(b, first[3], last[4])}”"


def said(differences: list[FieldDifference], here: str = "here") -> str:
    """The differing fields in one sentence, the first few named."""
    shown = "; ".join(d.said(here) for d in differences[:MAX_FIELDS])
    more = len(differences) - MAX_FIELDS
    return shown + (f"; and {more} more field(s)" if more > 0 else "")


def serialized_difference(original: str, target: str) -> str:
    """Two serialized snapshots (syrupy's amber text), said as the lines that differ under their keys."""
    a, b = original.splitlines(), target.splitlines()
    parts: list[str] = []
    for tag_, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag_ == "equal":
            continue
        where = _amber_path(a, i1) if i1 < len(a) else _amber_path(b, j1)
        old = " ⏎ ".join(line.strip() for line in a[i1:i2]) or "nothing"
        new = " ⏎ ".join(line.strip() for line in b[j1:j2]) or "nothing"
        parts.append(f"{where + ': ' if where else ''}{old} on the original, {new} here")
    more = f"\nand {len(parts) - MAX_FIELDS} more" if len(parts) > MAX_FIELDS else ""
    return "\n".join(parts[:MAX_FIELDS]) + more


def _amber_path(lines: list[str], index: int) -> str:
    """The keys enclosing line `index` of an amber text (by indentation)."""
    keys: list[str] = []
    depth = len(lines[index]) - len(lines[index].lstrip())
    for line in reversed(lines[:index]):
        indent = len(line) - len(line.lstrip())
        found = _AMBER_KEY.match(line)
        if indent < depth and found:
            keys.append(found.group(1))
            depth = indent
    return ".".join(reversed(keys))
