"""Cutting a text for a line a person reads, shared by every writer (core: no imports, no hypothesis)."""

from __future__ import annotations

import re

_NAME = r"[A-Za-z_][\w.:/-]*(?=, |[)\];…]|$)"
_NAMES = re.compile(rf"(?<![\w.:/-])(?:{_NAME}, )+{_NAME}")
"""A run of names (tools, fields) joined by ", ": each ends at the comma, a closing bracket or the text's
end, so "k, where the original offers" ends the run at k."""
_MORE = re.compile(r", and (\d+) more\b")
LISTED_TEXT_MAX = 65_536
"""Longer texts (a hostile server's megabyte answer) are cut plainly: their lists are not looked for."""


def cut_text(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, '…' last: at the last space when one is in the last third, so a
    cut never leaves a fragment of a word ("2026-…", "'Est…"); a long unbroken token is cut where it must."""
    if len(text) <= limit:
        return text
    listed = names_cut(text, limit)
    if listed is not None:
        return listed
    kept = text[: max(limit - 1, 0)]
    space = kept.rfind(" ")
    if space >= max(1, (2 * limit) // 3):
        kept = kept[:space].rstrip(" ,;:")
    return kept + "…"


def names_cut(text: str, limit: int) -> str | None:
    """`text` in at most `limit` characters where the cut falls inside a list of three or more names: the
    names that fit, then "and N more" (the count of those left out), then what followed the list when it
    fits beside three names or more ("it offers: a, b, c, and 17 more); its …"). A server's 20 tools cut to
    "…, resume_session…" left a reader no count of those not shown. None when no such list is cut."""
    if len(text) <= limit or len(text) > LISTED_TEXT_MAX:
        return None
    for run in _NAMES.finditer(text):
        if run.start() >= limit:
            break
        if run.end() <= limit - 1:
            continue
        names = run.group().split(", ")
        head, rest = text[: run.start()], text[run.end():]
        earlier = _MORE.match(rest)  # a list cut before: its count joins this one's
        more = int(earlier.group(1)) if earlier else 0
        rest = rest[earlier.end():] if earlier else rest
        closer = ")" if rest.startswith(")") else ""
        dropped = "…" if rest[len(closer):] else ""
        for tail, least in ((rest, 3), (closer + dropped, 2)):
            count = f", and {len(names) + more} more"  # the widest the count can be
            kept = _fitting(names, limit - len(head) - len(count) - len(tail))
            if least <= kept < len(names):
                return f"{head}{', '.join(names[:kept])}, and {len(names) - kept + more} more{tail}"
        return None
    return None


def listed_lead(text: str, within: int) -> int | None:
    """The characters a cut of `text` keeps so that a list of names starting in its first `within` characters
    still says its first three names and how many more ("(it offers: a, b, c, and 23 more)…"): a stop's second
    clause kept to a fixed lead had lost its list whole, count and all. None when no list of four or more
    names starts there."""
    if len(text) > LISTED_TEXT_MAX:
        return None
    for run in _NAMES.finditer(text):
        if run.start() >= within:
            return None
        names = run.group().split(", ")
        if len(names) > 3:
            more = _MORE.match(text, run.end())
            count = len(names) - 3 + (int(more.group(1)) if more else 0)
            return run.start() + len(", ".join(names[:3])) + len(f", and {count} more") + 2  # its ")" and "…"
    return None


def _fitting(names: list[str], room: int) -> int:
    """How many of `names`, joined by ", ", fit in `room` characters (counted once each: a list of a
    hostile server's 400,000 names is read in one pass)."""
    used = -2
    for kept, name in enumerate(names):
        used += len(name) + 2
        if used > room:
            return kept
    return len(names)
