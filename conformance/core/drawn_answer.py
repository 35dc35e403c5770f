"""Whether two stderr boxes differ only by drawing the values their answers differ by: one change, two ways.

A fork that strips invisible characters from a branch label answers `branches` without them and draws its box
one column narrower around the same label (fork-model-guard, held-out-multi-9: OBJ-15 new under dev and relay
seed 11, though the OBJ-4/a1 entry pins that label dropped from `branches`). Such a box shows the answer's
change, not one of its own: its difference is said with `DRAWN` in front, and `gate/pinned.evidence_keys`
keys it by the answer alone, so the entry pinning the answer's difference covers it (issue 43).
"""

from __future__ import annotations

import difflib
import json
from typing import Final

from conformance.core.jsontypes import JSON

DRAWN: Final = "(the box redraws the answer's changed values) "
"""Put after `stderr: ` in a stderr difference whose box differs only where it draws the answer's changed
values (`box_draws_answer`); in front, so a pinned pair's cut difference (400 characters) keeps it."""
MAX_STRINGS: Final = 256
"""The most strings read from one answer (hostile data: a bounded walk)."""
MAX_DEPTH: Final = 12
MAX_CHARS: Final = 20_000
"""The longest stderr compared character by character (a long thought's box; longer is never said drawn)."""
MAX_SPANS: Final = 1_000
_SIZING: Final = frozenset("─ ")
"""What a box changes where its width follows a label's: its rules and its rows' padding."""


def box_draws_answer(original_stderr: str, target_stderr: str, original: JSON | None,
                     target: JSON | None) -> bool:
    """Whether both stderrs draw a box and differ only inside the strings their answers differ by (a label
    dropped or rewritten: each side's changed text lies within a string only its own answer holds) and in the
    rules and padding the box sizes around them."""
    if original_stderr == target_stderr or not (_draws(original_stderr) and _draws(target_stderr)):
        return False
    if max(len(original_stderr), len(target_stderr)) > MAX_CHARS:
        return False
    theirs, ours = _strings(original), _strings(target)
    gone, new = theirs - ours, ours - theirs
    if not gone and not new:
        return False
    inside_a, inside_b = _spans(original_stderr, gone), _spans(target_stderr, new)
    matcher = difflib.SequenceMatcher(a=original_stderr, b=target_stderr, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if set(original_stderr[i1:i2] + target_stderr[j1:j2]) <= _SIZING:
            continue  # a rule or a row's padding, one label longer or shorter
        if not (_within(i1, i2, inside_a) and _within(j1, j2, inside_b)):
            return False
    return True


def drawn(difference: str) -> bool:
    """Whether a difference, as said, is a stderr box that only redraws the answer's change."""
    return difference.startswith("stderr: " + DRAWN)


def _draws(text: str) -> bool:
    lines = text.split("\n")
    return any(line.startswith("┌") for line in lines) and any(line.startswith("└") for line in lines)


def _spans(text: str, strings: set[str]) -> list[tuple[int, int]]:
    """Where each of the strings occurs in the text (every occurrence, overlapping ones too)."""
    found: list[tuple[int, int]] = []
    for s in strings:
        at = text.find(s)
        while at >= 0 and len(found) < MAX_SPANS:
            found.append((at, at + len(s)))
            at = text.find(s, at + 1)
    return found


def _within(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    """Whether a side's changed range lies inside one occurrence; a side that changed nothing there (an
    empty range: the other side's text dropped or inserted) needs none."""
    if start == end:
        return True
    return any(low <= start and end <= high for low, high in spans)


def _strings(value: JSON | None) -> set[str]:
    """The non-empty strings an answer holds; a text that is JSON itself (a tool result's) read inside."""
    found: set[str] = set()

    def walk(item: object, depth: int) -> None:
        if len(found) >= MAX_STRINGS or depth > MAX_DEPTH:
            return
        if isinstance(item, dict):
            for child in item.values():
                walk(child, depth + 1)
        elif isinstance(item, list):
            for child in item:
                walk(child, depth + 1)
        elif isinstance(item, str) and item:
            if item.lstrip()[:1] in ("{", "["):
                try:
                    walk(json.loads(item), depth + 1)
                    return
                except (ValueError, RecursionError):
                    pass
            found.add(item)

    walk(value, 0)
    return found
