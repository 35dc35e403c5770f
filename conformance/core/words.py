"""Cutting a text for a line a person reads, shared by every writer (core: no imports, no hypothesis)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

_NAME = r"[A-Za-z_][\w.:/-]*(?=, |[)\];…]|$)"
_NAMES = re.compile(rf"(?<![\w.:/-])(?:{_NAME}, )+{_NAME}")
"""A run of names (tools, fields) joined by ", ": each ends at the comma, a closing bracket or the text's
end, so "k, where the original offers" ends the run at k."""
_MORE = re.compile(r", and (\d+) more\b")
_WORD_AFTER = re.compile(r", [A-Za-z_][\w.:/-]*")
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
    return _list_ends_kept(text, kept, limit) + "…"


def _list_ends_kept(text: str, kept: str, limit: int) -> str:
    """`kept` ending where a list of names that fits ends: a plain cut backing up to a space inside it dropped
    its last name with no count, and one past it by a word ("a, b, where…") left the word read as one more
    name, so a second cut counted 37 or 39 of 38 names."""
    if len(text) > LISTED_TEXT_MAX:
        return kept
    cut = len(kept)
    for run in _NAMES.finditer(text):
        if run.start() >= cut or run.end() > limit - 1:
            break
        if run.end() > cut or _WORD_AFTER.fullmatch(text, run.end(), cut):
            return text[: run.end()]
    return kept


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


def first_and_more(items: Sequence[str], most: int, *, sep: str = ", ", last: str | None = None,
                   more: str = " and {} more", room: int | None = None, least: int = 1) -> str:
    """The first `most` of `items` joined by `sep` (fewer while they overrun `room` characters, never fewer
    than `least`), then `more` with the count of the others: shown and counted always add up to the list,
    one place for every "first N, and M more" a line says. All shown, the last is joined by `last` when
    given ("a, b and c")."""
    n = len(items)
    shown = max(0, min(most, n))
    if room is not None and len(_first_and_more(items, shown, sep, last, more)) > room:
        used = -len(sep)
        fits = 0
        for k, item in enumerate(items[:shown], start=1):  # one pass: a hostile server's list is long
            used += len(sep) + len(item)
            if used + len(more.format(n - k)) > room:
                break
            fits = k
        shown = min(shown, max(fits, least))
    return _first_and_more(items, shown, sep, last, more)


def _first_and_more(items: Sequence[str], shown: int, sep: str, last: str | None, more: str) -> str:
    if shown >= len(items):
        if last is not None and len(items) > 1:
            return sep.join(items[:-1]) + last + items[-1]
        return sep.join(items)
    head = sep.join(items[:shown])
    count = more.format(len(items) - shown)
    return head + count if head else count.lstrip(" ,;").removeprefix("and ")


_OPEN = "([{“"
_CLOSE = ")]}”"


def split_top(text: str, separator: str) -> list[str]:
    """`text` split at `separator` where no bracket or curly quote is open (a clause's own "(a; b)" stays).
    Inside a curly quote brackets are a server's words, not ours: a quoted value cut with its "[ {" left open
    (“[ { "thought": …”) no longer hides the clauses after it."""
    parts: list[str] = []
    depth = 0
    quoted = 0
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "“":
            quoted += 1
        elif ch == "”":
            quoted = max(quoted - 1, 0)
        elif quoted:
            pass
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(depth - 1, 0)
        elif depth == 0 and text.startswith(separator, i):
            parts.append(text[start:i])
            i += len(separator)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return parts


_ASIDE_CHARS = 24
"""A bracketed aside at least this long is folded to "(…)" before a long first clause is cut."""


def fold_asides(text: str) -> str:
    """`text` with its long bracketed asides inside the line ("SPEC-6 (2025-06-18..2026-07-28 server/tools §
    Structured Content (SHOULD)) with the auto client") folded to "(…)": a cut then keeps the difference
    the headline says after them, not the preamble (issue 42, wild13's chinng-py). A closing aside (a
    count) stays."""
    out: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            whole_word = start > 0 and text[start - 1] == " " and text[i + 1:i + 2] in (" ", ",", ":", ";")
            if depth == 0 and whole_word and i - start + 1 >= _ASIDE_CHARS and text[i + 2:].strip():
                out.append("(…)")
            elif depth == 0:
                out.append(text[start:i + 1])
        elif depth == 0:
            out.append(ch)
    if depth:
        out.append(text[start:])
    return "".join(out)


HEAD = " — "
"""Where a cause's own words end and its check's begin ("SPEC-1 departs — …"): kept when a lead is cut."""
_RECORD_LED = re.compile(r"[A-Z]+-\d+[a-z]?(?:/a\d+)? ")
"""A lead that opens with a record's ID: the record's prefix (its citation, the client that met it), not
the difference; a lead of other words may be the difference itself ("an accepted call's result has no
structuredContent: {…}") and is never dropped."""
WORDED_OTHERWISE = " are worded otherwise on "
"""compare's lead before a re-wording ("Refusals of `name` are worded otherwise on A and B: the refusal of
`name` is re-worded: “…” on A, “…” on B"): what follows says it again, so it is cut before the words."""
LEAD_LEAST = 24
"""The fewest characters a cut keeps of a lead or a difference; a lead shorter than this is never cut."""


def lead_cut(text: str, room: int, cut: Callable[[str, int], str] = cut_text) -> str | None:
    """`text` in `room` characters cut in its lead, the words before its first ": " outside brackets and
    quotes, before the difference after it: a record's long prefix ("SPEC-1 (2024-11-05..2025-11-25 basic/
    lifecycle § …) with the auto client, settled on 2025-06-18: ") ate the headline and its difference ended
    in "…" (issue 42, fork-protocol-upgrade). The lead keeps a start when the difference leaves it room, else
    goes; the words before " — " stay. None when there is no such lead (`_RECORD_LED`, compare's
    `WORDED_OTHERWISE`) or too little room; `cut` cuts a part."""
    parts = split_top(text, ": ")
    if len(text) <= room or len(parts) < 2:
        return None
    lead, rest = parts[0], ": ".join(parts[1:])
    head = lead[: lead.index(HEAD) + len(HEAD)] if HEAD in lead else ""
    words = lead[len(head):]
    if not (_RECORD_LED.match(words) or WORDED_OTHERWISE in words) or len(words) < LEAD_LEAST:
        return None
    left = room - len(head) - len(rest)
    folded = fold_asides(words)
    if left - 2 - len(folded) >= 0 and folded != words:
        return f"{head}{folded}: {rest}"
    if left < 0:
        return head + cut(rest, room - len(head)) if room - len(head) >= LEAD_LEAST else None
    if left - 2 >= LEAD_LEAST:
        return f"{head}{cut(folded, left - 2)}: {rest}"
    return head + rest
