"""How two refusals of the same call are worded differently: the spans one side adds, drops or replaces,
token by token, so a report can say what changed (`"inclusive": true` added) instead of quoting both."""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from conformance.core.differences import WHOLE_CHARS, other_fields, refusal_in_text, refusals_compared
from conformance.core.jsontypes import JSON

_TOKEN: Final = re.compile(r'"(?:[^"\\]|\\.)*"|\w+|[^\w\s]')
MAX_EDITS: Final = 3
"""More edits than this between two texts is a rewrite, not an edit."""
MAX_SPAN: Final = 60
SHORT_MESSAGE: Final = 90
"""A refusal this short is quoted whole when one pair is described."""


@dataclass(frozen=True)
class Edit:
    """One span B has instead of A's (either may be empty)."""

    removed: str
    added: str

    def describe(self, b: str) -> str:
        if not self.removed:
            return f"{b} adds `{self.added}`"
        if not self.added:
            return f"{b} drops `{self.removed}`"
        return f"`{self.removed}` becomes `{self.added}` on {b}"


def edits(a: str, b: str) -> list[Edit] | None:
    """The spans that differ, or None when the texts differ too much to call it an edit."""
    ta = [(m.start(), m.end()) for m in _TOKEN.finditer(a)]
    tb = [(m.start(), m.end()) for m in _TOKEN.finditer(b)]
    words_a = [a[s:e] for s, e in ta]
    words_b = [b[s:e] for s, e in tb]
    found: list[Edit] = []
    matcher = difflib.SequenceMatcher(None, words_a, words_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        removed = a[ta[i1][0] : ta[i2 - 1][1]] if i2 > i1 else ""
        added = b[tb[j1][0] : tb[j2 - 1][1]] if j2 > j1 else ""
        if len(removed) > MAX_SPAN or len(added) > MAX_SPAN:
            return None
        found.append(Edit(removed.strip(", "), added.strip(", ")))
    if not found or len(found) > MAX_EDITS:
        return None
    return found


@dataclass(frozen=True)
class WordingChange:
    """What the differences' refusals show changed: common edits with how many texts carry each, or
    excerpts of one pair when the wording was rewritten."""

    common: tuple[tuple[Edit, int], ...]
    rewritten: int
    total: int


def wording_change(pairs: Sequence[tuple[str, str]]) -> WordingChange:
    counts: Counter[Edit] = Counter()
    rewritten = 0
    for a, b in pairs:
        found = edits(a, b)
        if found is None:
            rewritten += 1
        else:
            counts.update(set(found))
    common = tuple(counts.most_common(3))
    return WordingChange(common, rewritten, len(pairs))


def describe_wording(change: WordingChange, b: str, example: tuple[str, str] | None,
                     a: str = "the original") -> str:
    """E.g. '2026.7.4 adds `"inclusive": true` (3 of 9)'; or 'rewritten (e.g. A: "…", B: "…")'; one pair of
    refusals is said by the shared explainer (core/differences.py): the field each names first when they
    differ (validation order), else how the words changed, a prefix or suffix as such."""
    if change.total == 1 and example is not None:
        said = refusals_compared(refusal_in_text(example[0]), refusal_in_text(example[1]), f"on {b}", a)
        if said:
            return said
    parts: list[str] = []
    for edit, count in change.common[:2]:
        share = "" if count == change.total else f" ({count} of {change.total})"
        parts.append(edit.describe(b) + share)
    if change.rewritten:
        share = "" if change.rewritten == change.total else f" ({change.rewritten} of {change.total})"
        shown = ""
        if example is not None:
            wa, wb = short_pair(message(example[0]), message(example[1]), 60)
            shown = f": “{wa}” against “{wb}”"
        parts.append(f"rewritten{share}{shown}")
    return "; ".join(parts)


def message(answer: str) -> str:
    """The message a refusal carries: the `error` of a JSON answer, the `message`s of a validation error,
    else the answer itself."""
    text = answer.removeprefix("isError ").strip()
    parsed = _first_json(text)
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), str):
        return str(parsed["error"])
    messages = re.findall(r'"message":\s*"((?:[^"\\]|\\.)*)"', text)
    if messages:
        return "; ".join(dict.fromkeys(messages))
    return text


def validation_order(pairs: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """When every pair's refusals name different fields first: the fields (first pair's), else None — two
    sides validating in another order, which no re-wording explains."""
    found: list[tuple[str, str]] = []
    for a, b in pairs:
        ra, rb = refusal_in_text(a), refusal_in_text(b)
        # `thoughtNumber` and `thought_number` are one field spelled two ways (a port, a mapped compare's B):
        # the same field refused first, in other words, never "another field first".
        if not other_fields(ra.field, rb.field):
            return None
        found.append((ra.field, rb.field))
    return found[0] if found else None


def _first_json(text: str) -> JSON | None:
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return None
    return value  # type: ignore[no-any-return]


@dataclass(frozen=True)
class IssueChange:
    """How one field's schema-validation issue differs between two refusals of the same call: its issue
    code on each side (`none` when that side raises none for the field), and the edits when the code is
    the same."""

    path: str
    code_a: str
    code_b: str
    edits: tuple[Edit, ...] | None


def issues(answer: str) -> tuple[dict[str, dict[str, JSON]], bool] | None:
    """A schema refusal's issues by path (`a.b`) and whether the list was cut short (answers are kept to
    600 characters); None when the answer carries no issue list."""
    text = answer.removeprefix("isError ")
    head = text.find("Invalid arguments")
    start = text.find("[", head)
    if head < 0 or start < 0:
        return None
    decoder = json.JSONDecoder()
    out: dict[str, dict[str, JSON]] = {}
    at = start + 1
    while True:
        while at < len(text) and text[at] in " \n\t,":
            at += 1
        if at >= len(text):
            return (out, True) if out else None
        if text[at] == "]":
            return out, False
        try:
            issue, at = decoder.raw_decode(text, at)
        except ValueError:
            return (out, True) if out else None
        if not isinstance(issue, dict) or not isinstance(issue.get("path"), list):
            return None
        key = ".".join(str(p) for p in issue["path"]) or "(arguments)"
        n = sum(1 for k in out if k.split(" #")[0] == key)
        out[f"{key} #{n + 1}" if n else key] = issue


def issue_changes(a: str, b: str) -> list[IssueChange] | None:
    """The fields whose issues differ between two schema refusals, or None when either is no such refusal."""
    pa, pb = issues(a), issues(b)
    if pa is None or pb is None:
        return None
    (ia, cut_a), (ib, cut_b) = pa, pb
    paths = list(dict.fromkeys([*ia, *ib]))
    if cut_a or cut_b:
        # A path missing from a list cut short may lie past the cut: compare only what both show.
        paths = [p for p in paths if p in ia and p in ib]
    out: list[IssueChange] = []
    for path in paths:
        x, y = ia.get(path), ib.get(path)
        if x == y:
            continue
        ca = str(x.get("code", "?")) if x is not None else "none"
        cb = str(y.get("code", "?")) if y is not None else "none"
        found = None
        if x is not None and y is not None and ca == cb:
            spans = edits(json.dumps(x, ensure_ascii=False), json.dumps(y, ensure_ascii=False))
            found = tuple(spans) if spans is not None else None
        out.append(IssueChange(path.split(" #")[0], ca, cb, found))
    return out or None


def text_issues(answer: str) -> list[str] | None:
    """A schema refusal written as text after the tool's name (`Too small: … at thoughtNumber`), or None when
    the answer is no such refusal or lists its issues as JSON."""
    text = answer.removeprefix("isError ")
    _, found, rest = text.partition("Invalid arguments for tool ")
    if not found or issues(answer) is not None:
        return None
    _, colon, message_ = rest.partition(": ")
    return [part.strip() for part in message_.split("; ")] if colon and message_.strip() else None


def answer_object(answer: str) -> dict[str, JSON] | None:
    """The status object an accepted answer shows (its text, parsed), or None."""
    value = _first_json(answer)
    return value if isinstance(value, dict) else None


def short(text: str, width: int) -> str:
    """A value on one line: whole up to `WHOLE_CHARS` (200) whatever `width` asks, else cut at `width`. A
    value cut short of 200 characters hid what differed (`{"destructiveHint": false, "i…`)."""
    text = " ".join(text.split())
    if len(text) <= max(width, WHOLE_CHARS):
        return text
    cut = text[: width - 1] + "…"
    return cut + _json_closers(cut) if _is_json(text) else cut


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _json_closers(cut: str) -> str:
    """What closes a JSON text cut short: its open string, then its open arrays and objects, innermost first,
    so a value shown cut still reads as one (`{"a": [1, …]}`, not `{"a": [1, …`)."""
    still: list[str] = []
    in_string = escaped = False
    for ch in cut:
        if in_string:
            in_string = escaped or ch != '"'
            escaped = not escaped and ch == "\\"
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            still.append("]" if ch == "[" else "}")
        elif ch in "]}" and still:
            still.pop()
    return ('"' if in_string else "") + "".join(reversed(still))


def short_pair(a: str, b: str, width: int) -> tuple[str, str]:
    """Two values shown side by side, each as `short` shows it, unless that cut would hide where they first
    differ: then both are shown from the same place a little before it ("…, "thoughtNumber": 2, …"), so two
    long texts differing only after the cut never read alike."""
    sa, sb = short(a, width), short(b, width)
    ta, tb = " ".join(a.split()), " ".join(b.split())
    if ta == tb:
        return sa, sb
    first = next((i for i, (x, y) in enumerate(zip(ta, tb, strict=False)) if x != y), min(len(ta), len(tb)))
    if first < width - 1 or (sa == ta and sb == tb):
        return sa, sb
    room = max(width - 2, 2)
    start = max(first - room // 3, 1)
    return _window(ta, start, room), _window(tb, start, room)


def _window(text: str, start: int, room: int) -> str:
    """`text` from `start` for `room` characters, an ellipsis at each end it cuts."""
    end = start + room
    return "…" + text[start:end] + ("…" if end < len(text) else "")


__all__ = [
    "Edit",
    "IssueChange",
    "WordingChange",
    "answer_object",
    "describe_wording",
    "edits",
    "issue_changes",
    "issues",
    "message",
    "short",
    "short_pair",
    "text_issues",
    "validation_order",
    "wording_change",
]
