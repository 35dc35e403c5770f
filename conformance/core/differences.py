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
from conformance.core.served import read_served

MAX_FIELDS: Final = 6
"""More differing fields than this are counted, not listed."""
_WORD: Final = re.compile(r"\s+|\w+|[^\w\s]")
_WINDOW_CHARS: Final = 400
"""Characters kept either side of the differing span before the texts are split into words."""
_MATCHED_WORDS: Final = 4_000_000
"""The largest product of the two changed middles' word counts matched word by word (a few seconds)."""
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
        parsed: JSON = read_served(value, "text")
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
    """The two texts cut to the words that differ, with a few words around: `… a [b] c …` each side. Only a
    window around the characters that differ is split into words (a 1 MiB box costs what a short one does)."""
    if original == target:
        return json.dumps(original, ensure_ascii=False), json.dumps(target, ensure_ascii=False)
    head = _common_length(original, target)
    tail = _common_length(original[head:][::-1], target[head:][::-1])
    start = max(head - _WINDOW_CHARS, 0)
    ends = (len(original) - max(tail - _WINDOW_CHARS, 0), len(target) - max(tail - _WINDOW_CHARS, 0))
    a, b = _WORD.findall(original[start:ends[0]]), _WORD.findall(target[start:ends[1]])
    changed = _changed_blocks(a, b)
    first, last = changed[0], changed[-1]

    def cut(words: list[str], begin: int, end: int, more_after: bool) -> str:
        lo, hi = max(begin - context, 0), min(end + context, len(words))
        text = "".join(words[lo:begin]) + "[" + "".join(words[begin:end]) + "]" + "".join(words[end:hi])
        inner = json.dumps(text, ensure_ascii=False)[1:-1]
        return ("…" if lo or start else "") + inner + ("…" if hi < len(words) or more_after else "")

    return (f"“{cut(a, first[1], last[2], ends[0] < len(original))}”",
            f"“{cut(b, first[3], last[4], ends[1] < len(target))}”")


def _common_length(a: str, b: str) -> int:
    """How many leading characters the two strings share, by halving (each comparison runs in C)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _changed_blocks(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's changed opcodes, past the common head and tail; a middle too long to match (a 1 MiB
    thought's border is a million one-character words, quadratic for the matcher) is one changed block."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    end_a, end_b = len(a) - tail, len(b) - tail
    if head == end_a and head == end_b:
        return []
    if (end_a - head) * (end_b - head) > _MATCHED_WORDS:
        return [("replace", head, end_a, head, end_b)]
    blocks = difflib.SequenceMatcher(a=a[head:end_a], b=b[head:end_b], autojunk=False).get_opcodes()
    return [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in blocks
            if tag != "equal"]


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
