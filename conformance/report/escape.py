"""Text that is safe to print: whatever a server wrote reaches the terminal only as visible escapes."""

from __future__ import annotations

import re
import sys
from typing import Final, TextIO

from conformance.core.printable import safe as safe  # the writers' import
from conformance.core.printable import safe_lines as safe_lines
from conformance.core.printable import writable
from conformance.core.words import (
    LEAD_LEAST,
    cut_text,
    first_and_more,
    fold_asides,
    lead_cut,
    listed_lead,
    names_cut,
)
from conformance.core.words import split_top as _split_top


def encodable(text: str, stream: TextIO) -> str:
    """`text` as `stream` can encode it (a latin-1 terminal still gets every character, escaped)."""
    return writable(text, getattr(stream, "encoding", None) or "utf-8")


def write_line(text: str, stream: TextIO | None = None) -> None:
    out = stream if stream is not None else sys.stdout
    out.write(encodable(text, out) + "\n")
    out.flush()


_COUNT: Final = re.compile(r" \(\d+ differences?\)$")
_OPEN: Final = "([{“"
_CLOSE: Final = ")]}”"


def _at_word(text: str, limit: int) -> str:
    """`text` cut to `limit` at the last word boundary, marked "…"; never inside a word."""
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 0)]
    space = cut.rfind(" ")
    if space > 0:
        cut = cut[:space]
    elif len(text) > len(cut) and not text[len(cut)].isspace():
        return "…"
    return cut.rstrip(" ,;:") + "…"


HEADLINE_CHARS: Final = 300
"""Characters of a cause's headline a short page (atlas.md, a pull request's comment) shows before it cuts at
a clause (the full text is in the JSON and HTML beside it)."""


def cut_headline(text: str, limit: int = HEADLINE_CHARS) -> str:
    """A headline made of clauses ("a; b; c (3 differences)") kept whole up to `limit` characters: the
    clauses that fit and "and N more", the count kept; a first clause too long is cut at its commas, then
    at a word. Never mid-word. The full text stays in the report's JSON and HTML."""
    if len(text) <= limit:
        return text
    match = _COUNT.search(text)
    count = match.group(0) if match else ""
    body = text[: match.start()] if match else text
    clauses = _split_top(body, "; ")
    if len(clauses) > 1 and not _several(count):
        every = _every_clause(clauses, limit - len(count))
        return (every if every is not None else _at_word(body, limit - len(count))) + count
    if len(clauses) > 1:
        counted = first_and_more(clauses, len(clauses) - 1, sep="; ", more="; and {} more",
                                 room=limit - len(count))
        if len(counted) + len(count) <= limit:
            return counted + count
    more = f"; and {len(clauses) - 1} more" if len(clauses) > 1 else ""
    room = limit - len(more) - len(count)
    first = fold_asides(clauses[0])
    if len(first) <= room:
        return first + more + count
    listed = names_cut(first, room)
    if listed is not None:
        return listed + more + count
    led = lead_cut(first, room, _at_word)
    if led is not None:
        return led + more + count
    parts = _split_top(first, ", ")
    for kept in range(len(parts) - 1, 0, -1):
        candidate = ", ".join(parts[:kept]) + ", …" + more + count
        if len(candidate) <= limit:
            if len(candidate) * 3 >= limit * 2:
                return candidate
            break  # the commas keep only a preamble ("RTE-10 departs — after stdin ended, …"): cut at a word
    if room >= 12:
        return _at_word(first, room) + more + count
    return _at_word(text, limit)


def _several(count: str) -> bool:
    """Whether a headline's count says more than one difference: only then are its clauses things a reader
    counts ("; and 2 more"); one difference's clauses are parts of one sentence ("…; 0.6.2 sends none")."""
    return bool(count) and not count.startswith(" (1 ")


def _every_clause(clauses: list[str], room: int) -> str | None:
    """One difference's clauses in `room` characters, every one said, the short ones whole and the long ones
    cut to equal shares of what is left (each by `_clause_cut`): a one-difference cause cut to "…; and 1
    more (1 difference)" dropped the other side of its sentence ("0.6.2 sends none"). None when a share
    would keep fewer than `LEAD_LEAST` characters."""
    left = room - 2 * (len(clauses) - 1)
    order = sorted(range(len(clauses)), key=lambda i: len(clauses[i]))
    shares: dict[int, int] = {}
    for rank, i in enumerate(order):
        share = left // (len(clauses) - rank)
        if share < LEAD_LEAST and len(clauses[i]) > share:
            return None
        shares[i] = min(len(clauses[i]), share)
        left -= shares[i]
    kept = [clause if len(clause) <= shares[i] else _clause_cut(clause, shares[i])
            for i, clause in enumerate(clauses)]
    return "; ".join(kept)


def _clause_cut(clause: str, room: int) -> str:
    """One clause in `room` characters: its long asides folded, then its lead (what comes before its first
    ": ") cut before the difference after it, then a cut at a word."""
    folded = fold_asides(clause)
    if len(folded) <= room:
        return folded
    led = lead_cut(folded, room, _at_word)
    return led if led is not None else _at_word(folded, room)


STOP_CHARS: Final = 600
"""Characters of a stop's reason the terminal line and report.md show: the conclusion always among them."""


def conclusion_kept(text: str, limit: int = STOP_CHARS) -> str:
    """A stop's reason ("what the server takes; what it answered; what follows") in one printable line of at
    most `limit` characters, its last clause, the conclusion, kept whole: what comes before it is cut at a
    word (a quote left open closed), never the conclusion. Clauses are split where no bracket or quote is
    open, so a server's own "a; b" stays inside its quote. The whole text stays in report.json."""
    text = safe(text)
    if len(text) <= limit:
        return text
    clauses = _split_top(text, "; ")
    if len(clauses) < 2:
        return cut_text(text, limit)
    leads = sum(_lead(clause) + 2 for clause in clauses[:-1])
    last = (clauses[-1] if len(clauses[-1]) <= limit // 2
            else _middle_cut(clauses[-1], max(limit // 2, min(limit * 2 // 3, limit - leads))))
    before, room = "; ".join(clauses[:-1]), limit - len(last) - 2
    head = _leads_kept(clauses[:-1], room)
    if head is None:
        head = _closed_cut(before, room)
    return f"{head}; {last}"


_LEAD_CHARS: Final = 64
"""What a cut head keeps of each clause after the first it cuts: a tool-name stop's "and it does not offer the
sequentialthinking tool (…)"."""


def _lead(clause: str) -> int:
    """What a cut head keeps of `clause` at least: its first `_LEAD_CHARS` characters, or more when a list of
    names starts among them, to keep the list's first names and its count (lsekit-sequentialthinking's 26
    tools had been said as "(it offers…)")."""
    return min(len(clause), max(_LEAD_CHARS, listed_lead(clause, _LEAD_CHARS) or 0))


def _leads_kept(clauses: list[str], room: int) -> str | None:
    """The clauses before a stop's conclusion in `room` characters, the earlier kept whole first, as a cut
    of the joined head keeps them, but each later one keeping its lead: a stray line's stop joined to a
    tool-name stop ("…: 'Starting …'; and it does not offer the sequentialthinking tool (…)") lost the second
    stop whole when the head was cut from its end (issue 46, wild46's xd3an and philogicae). None when the
    leads alone do not fit."""
    if len("; ".join(clauses)) <= room:
        return "; ".join(clauses)
    leads = [_lead(clause) for clause in clauses]
    left = room - 2 * (len(clauses) - 1)
    if sum(leads) > left:
        return None
    kept: list[str] = []
    for i, clause in enumerate(clauses):
        share = left - sum(leads[i + 1:])
        piece = clause if len(clause) <= share else _closed_cut(clause, share)
        kept.append(piece)
        left -= len(piece)
    return "; ".join(kept)


def _closed_cut(text: str, room: int) -> str:
    """`text` cut at a word to `room` characters with the quote and brackets it left open closed."""
    head = _closed(_names_or_word(text, room))
    while len(head) > room and room > 1:  # the closing quote and brackets take room of their own
        room -= len(head) - room
        head = _closed(_names_or_word(text, room))
    return head


def _names_or_word(text: str, room: int) -> str:
    """A list of names cut with its count ("a, b, and 9 more"), any other text at a word."""
    listed = names_cut(text, room)
    return _at_word(text, room) if listed is None else listed


def _middle_cut(clause: str, limit: int) -> str:
    """A long clause in at most `limit` characters, its start and its end kept and its middle items (at
    commas outside brackets and quotes) said as "…": a tool-name stop's conclusion ("…, tags (requiring …),
    where the original's sequentialthinking takes thought, thoughtNumber, …") keeps the original's side,
    which a cut at the end lost (issue 46, wild13's promptly-ts). Cut at a word when no such items fit."""
    parts = _split_top(clause, ", ")
    tail: list[str] = []
    while len(parts) > len(tail) + 1 and len(", ".join([parts[-len(tail) - 1], *tail])) <= limit // 2:
        tail.insert(0, parts[-len(tail) - 1])
    head: list[str] = []
    rest = parts[: len(parts) - len(tail)]
    for part in rest:
        if len(", ".join([*head, part, "…", *tail])) > limit:
            break
        head.append(part)
    if not head or not tail:
        return cut_text(clause, limit)
    return ", ".join([*head, "…", *tail]) if len(head) < len(rest) else ", ".join([*head, *tail])


def _closed(cut: str) -> str:
    """A cut text with the curly quote and brackets it left open closed, innermost first."""
    still: list[str] = []
    for ch in cut:
        if ch in _OPEN:
            still.append(_CLOSE[_OPEN.index(ch)])
        elif ch in _CLOSE and still and still[-1] == ch:
            still.pop()
    return cut + "".join(reversed(still))
