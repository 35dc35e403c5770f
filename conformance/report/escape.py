"""Text that is safe to print: whatever a server wrote reaches the terminal only as visible escapes."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Final, TextIO

from conformance.core.differences import pair_fitted, quotes_fitted
from conformance.core.printable import safe as safe  # the writers' import
from conformance.core.printable import safe_lines as safe_lines
from conformance.core.printable import writable
from conformance.core.words import (
    HEAD,
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
    clauses that fit, then what those left out name ("; more on `x` and `y`"), never a count of clauses (a
    reader took "; and 15 more (5 differences)" for differences); a first clause too long is cut at its
    commas, then at a word. Never mid-word, never with a bracket or quote left open, and a cut that drops
    the start keeps the case the text starts with. The full text stays in the report's JSON and HTML."""
    if len(text) <= limit:
        return text
    match = _COUNT.search(text)
    count = match.group(0) if match else ""
    body = text[: match.start()] if match else text
    # Closed only when each clause closes what it opens: one left open (a server's own words) stays so.
    shut = closed if all(closed(c) == c for c in _split_top(body, "; ")) else str
    cut = _closed_within(lambda room: _body_cut(body, room, count), limit - len(count), shut)
    cut = _opened_as(text, cut)
    if len(cut) + len(count) <= limit:
        return cut + count
    return _closed_within(lambda room: _at_word(text, room), limit, shut)


def _body_cut(body: str, room: int, count: str) -> str:
    """The clauses of `body` in `room` characters (`cut_headline` without its count)."""
    clauses = _split_top(body, "; ")
    if len(clauses) > 1 and not _several(count):
        merged = _shared_starts_merged(clauses)
        every = _every_clause(merged, room)
        if every is None:
            every = _values_first(merged, room)
        if every is not None:
            return every
    if len(clauses) > 1:
        fits = [k for k in range(len(clauses) - 1, 0, -1)
                if len("; ".join(clauses[:k])) + len(_NOTHING_NAMED) <= room][:2]
        said = [("; ".join(clauses[:k]), dropped_said(clauses[k:], room - len("; ".join(clauses[:k]))))
                for k in fits]
        if said:  # one clause fewer when that lets the tail name what is left out
            head, tail = said[1] if tail_unnamed(said[0][1]) and len(said) > 1 and not tail_unnamed(
                said[1][1]) else said[0]
            return head + tail
    more = dropped_said(clauses[1:], min(room // 3, 80)) if len(clauses) > 1 else ""
    room -= len(more)
    first = fold_asides(clauses[0])
    if len(first) <= room:
        return first + more
    listed = names_cut(first, room)
    if listed is not None:
        return listed + more
    paired = pair_fitted(first, room)
    if paired is not None and len(paired) <= room:
        return paired + more
    if first.count("“") >= 2:  # two texts side by side: both kept, the words around them cut first
        led = lead_cut(first, room, _word_cut)
        compact = led if led is not None and keeps_difference(first, led) else _values_first([first], room)
        if compact is not None:
            return compact + more
    first = paired or first
    led = lead_cut(first, room, _word_cut)
    if led is not None:
        return led + more
    parts = _split_top(first, ", ")
    for kept in range(len(parts) - 1, 0, -1):
        candidate = ", ".join(parts[:kept]) + ", …" + more
        if len(candidate) <= room + len(more):
            if len(candidate) * 3 >= (room + len(more)) * 2:
                return candidate
            break  # the commas keep only a preamble ("RTE-10 departs — after stdin ended, …"): cut at a word
    if room >= 12:
        return _word_cut(first, room) + more
    return _word_cut(body, room + len(more))


_NOTHING_NAMED: Final = "; …"
_CODE: Final = re.compile(r"`([^`\n]{1,120})`")


def dropped_said(clauses: list[str], room: int) -> str:
    """What the clauses a cut leaves out are about, in at most `room` characters: the names they quote in
    backticks (fields, keys, tools), as many as fit and how many more names ("; more on `a`, `b` and 3 other
    names"), else "; …". Never a count of clauses: a clause is no unit a reader can count."""
    names = list(dict.fromkeys(m.group(1) for clause in clauses for m in _CODE.finditer(clause)))
    if not names:
        return _NOTHING_NAMED
    lead = "; more on "
    said = first_and_more([f"`{n}`" for n in names], len(names), last=" and ",
                          more=" and {} other names", room=room - len(lead), least=0)
    if not said or said.startswith(" ") or not said.startswith("`"):
        return _NOTHING_NAMED
    candidate = lead + said.replace(" and 1 other names", " and 1 other name")
    return candidate if len(candidate) <= room else _NOTHING_NAMED


def tail_unnamed(tail: str) -> bool:
    """Whether a cut's tail says nothing of what it left out."""
    return tail == _NOTHING_NAMED


def _closed_within(cut: Callable[[int], str], room: int, shut: Callable[[str], str] = str) -> str:
    """A cut made in `room` characters with the brackets and quotes it left open closed by `shut`: the room
    shrinks by what the closing takes (a validation headline ended inside "(re-tested on fresh calls: …")."""
    for _ in range(8):
        said = shut(cut(room))
        if len(said) <= room or room <= 1:
            return said
        room -= len(said) - room
    return shut(cut(max(room, 1)))


def _word_cut(text: str, limit: int) -> str:
    """`text` cut at a word in `limit` characters, the quotes and brackets the cut left open closed when
    `text` closes them itself."""
    shut = closed if closed(text) == text else str
    return _closed_within(lambda room: _at_word(text, room), limit, shut)


def _opened_as(text: str, cut: str) -> str:
    """`cut` starting in the case `text` starts in: a cut dropping a record's prefix or a lead ("Refusals of
    `x` are worded otherwise …: the refusal …") left a sentence starting in lowercase."""
    first = next((ch for ch in text if ch.isalpha()), "")
    at = next((i for i, ch in enumerate(cut) if ch.isalpha()), None)
    if at is None or not first.isupper() or not cut[at].islower() or cut[:at].strip(" —-"):
        return cut
    word = cut[at:].split(" ", 1)[0]
    if not word.isalpha():
        return cut  # a name or a value (`thoughtNumber`, node …/node) keeps its spelling
    return cut[:at] + cut[at].upper() + cut[at + 1:]


def _several(count: str) -> bool:
    """Whether a headline's count says more than one difference: only then are its clauses things a reader
    counts ("; and 2 more"); one difference's clauses are parts of one sentence ("…; 0.6.2 sends none")."""
    return bool(count) and not count.startswith(" (1 ")


def _every_clause(clauses: list[str], room: int) -> str | None:
    """One difference's clauses in `room` characters, every one said, the short ones whole and the long ones
    cut to equal shares of what is left (each by `_clause_cut`): a one-difference cause cut to "…; and 1
    more (1 difference)" dropped the other side of its sentence ("0.6.2 sends none"). None when a share
    would keep fewer than `LEAD_LEAST` characters or a clause's cut would lose its difference (“head adds…”
    for “head adds `properties.thought.maxLength` (102400)”): then whole clauses and what the rest name."""
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
    if not all(keeps_difference(clause, piece) for clause, piece in zip(clauses, kept, strict=True)):
        return None
    return "; ".join(kept)


_VALUE: Final = re.compile(r'`[^`\n]{1,120}`|“[^”]*”|\([^()]*\)|\{[^{}]*\}|"[^"]*"|-?\d+(?:\.\d+)?')
"""What a clause says a difference with: a name in backticks, a quote, a bracketed value, a number."""
_VALUES_KEPT: Final = 2
"""The first values of a clause's difference a cut must keep ("`properties.thought.maxLength` (102400)")."""


def keeps_difference(clause: str, piece: str) -> bool:
    """Whether `piece`, a cut of `clause`, still says its difference: the first values (`_VALUE`) of what
    follows its lead (the words before its first ": "), else of the lead (what follows is a conclusion: "…:
    a host reads it as a result"), each kept: a name or a number whole, a quote as a quote, a JSON value by
    its start. A long aside is context, not a value. A piece holding no value where the clause has some
    ("head adds…") says only that something changed."""
    if piece == clause:
        return True
    parts = _split_top(_closing_folded(fold_asides(clause)), ": ")
    difference = ": ".join(parts[1:]) if len(parts) > 1 else parts[0]
    values = _values(difference) or _values(parts[0])  # a conclusion after the values
    quotes = sum(1 for value in values if value.startswith("“"))  # each kept as a quote, cut or fitted
    return piece.count("“") >= quotes and all(_value_kept(value, piece) for value in values)


def _values(text: str) -> list[str]:
    """The first values `text` says, long asides and folded ones left out (context)."""
    found = (m.group() for m in _VALUE.finditer(text))
    return [v for v in found if not (v.startswith("(") and (v == "(…)" or len(v) >= _FOLDED_LEAST))][
        :_VALUES_KEPT]


def _value_kept(value: str, piece: str) -> bool:
    if value.startswith("“"):
        return True  # counted as quotes
    if value.startswith("(") and "(…)" in piece:
        return True  # an aside folded
    if value.startswith("{") and len(value) > _JSON_START:
        return value[:_JSON_START] in piece  # a JSON value cut after its start
    return value in piece


_JSON_START: Final = 10
"""The characters of a long JSON value a cut keeps for it to be said ({"taskSupport"…})."""


_SHARED_WORDS: Final = 2
"""The leading words clauses share that a merge says once ("head adds")."""


def _shared_starts_merged(clauses: list[str]) -> list[str]:
    """Clauses in a row that open with the same words said once, their rests as a list ("head adds `a` (1);
    head adds `b` (2)" → "head adds `a` (1), `b` (2)"): the values stay and the repeated words go, so a cut
    keeps each change's value (#3007's schema, six keys added, had been cut to "head adds…" six times)."""
    merged: list[str] = []
    start = ""
    for clause in clauses:
        words = clause.split(" ", _SHARED_WORDS)
        opening = " ".join(words[:_SHARED_WORDS]) + " " if len(words) > _SHARED_WORDS else ""
        if merged and opening and opening == start and ": " not in clause:
            merged[-1] += ", " + clause[len(opening):]
        else:
            merged.append(clause)
            start = opening if ": " not in clause else ""
    return merged


def _values_first(clauses: list[str], room: int) -> str | None:
    """One difference's clauses in `room` characters, each in its shortest form that still says its difference
    (`_compact_forms`), then the ones that gain least widened back while they fit: "`branches`…: head caps it
    at 100 (…); base keeps it growing by one a call (117 after call 117)" where equal shares had cut the
    values off each. None when even the shortest forms overrun."""
    forms = [_compact_forms(clause) for clause in clauses]
    level = [len(f) - 1 for f in forms]  # each clause's shortest form first
    used = sum(len(f[-1]) for f in forms) + 2 * (len(clauses) - 1)
    if used > room:
        return None
    while True:
        widen = [(len(forms[i][level[i] - 1]) - len(forms[i][level[i]]), i)
                 for i in range(len(forms)) if level[i] > 0]
        fits = [(gain, i) for gain, i in widen if used + gain <= room]
        if not fits:
            break
        gain, i = min(fits)
        level[i] -= 1
        used += gain
    return "; ".join(f[k] for f, k in zip(forms, level, strict=True))


def _compact_forms(clause: str) -> list[str]:
    """`clause` whole, then shorter forms that keep its difference's values, longest first: asides folded
    (the one closing it too), two quotes said by the words that differ, the lead cut to its subject, a list
    of values cut to its first items and a count."""
    folded = fold_asides(clause)
    bases = [clause, folded]
    paired = pair_fitted(folded, 0)
    if paired is not None:
        bases.append(paired)
    bases += [_closing_folded(b) for b in list(bases)]
    if paired is None:  # quotes that share words are said by the words that differ, never cut in their middle
        bases += [q for b in list(bases) for share in (3, 2, 0)
                  if (q := quotes_fitted(b, len(b) * share // 4)) is not None]
    bases += [s for b in list(bases) for words in (2, 4, 6, 8)
              if (s := _subject_kept(b, len(b), words)) is not None]
    for b in list(bases):
        parts = _split_top(b, ", ")
        if len(parts) >= 3 and all(_ITEM.fullmatch(part) for part in parts[1:]):
            bases += [", ".join(parts[:k]) + f", and {len(parts) - k} more" for k in range(1, len(parts) - 1)]
    kept = {b for b in bases if len(b) < len(clause) and keeps_difference(clause, b) and closed(b) == b}
    return [clause, *sorted(kept, key=lambda b: (-len(b), b))]


def _closing_folded(clause: str) -> str:
    """`clause` with a long bracketed aside that closes it folded to "(…)" ("head caps it at 100 (unchanged
    over calls 101 to 117)"): what it adds is context, the value before it stays."""
    if not clause.endswith(")"):
        return clause
    depth = 0
    for i in range(len(clause) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(clause[i], 0)
        if depth == 0:
            whole = i > 0 and clause[i - 1] == " " and len(clause) - i >= _FOLDED_LEAST
            return clause[:i] + "(…)" if whole else clause
    return clause


_FOLDED_LEAST: Final = 24
"""A closing aside at least this long is context a cut folds (as `fold_asides` folds one inside)."""


def _clause_cut(clause: str, room: int) -> str:
    """One clause in `room` characters, its values before its context: its long asides folded, two quotes side
    by side said by the words that differ, its lead (what comes before its first ": ") cut before the
    difference after it, a list of values cut to the first ones and a count, then a cut at a word."""
    folded = fold_asides(clause)
    if len(folded) <= room:
        return folded
    paired = pair_fitted(folded, room)
    if paired is not None and len(paired) <= room:
        return paired
    folded = paired or folded
    led = lead_cut(folded, room, _word_cut)
    if led is not None:
        return led
    subject = _subject_kept(folded, room)
    if subject is not None:
        return subject
    items = _items_cut(folded, room)
    return items if items is not None else _word_cut(folded, room)


def _subject_kept(clause: str, room: int, words_kept: int = 2) -> str | None:
    """`clause` with its lead cut to its subject, through the first name it quotes in backticks ("`branches`…:
    head caps it at 100"), else to its first `words_kept` words ("both refuse…: “…” on the original, “…”
    here"), the words before " — " kept, when its difference then fits whole; else None."""
    parts = _split_top(clause, ": ")
    if len(parts) < 2:
        return None
    lead, rest = parts[0], ": ".join(parts[1:])
    head = lead[: lead.index(HEAD) + len(HEAD)] if HEAD in lead else ""
    words = lead[len(head):]
    name = _CODE.search(words)
    subject = head + (words[: name.end()] if name else " ".join(words.split(" ")[:words_kept]).rstrip(" ,;"))
    if subject in (head, lead) or len(subject) + len(rest) + 3 > room:
        return None
    return f"{subject}…: {rest}"


_ITEM: Final = re.compile(r'(?:`[^`]+`|“[^”]*”|"[^"]*"|[\w.$-]+)(?: \([^()]*\))?')
"""One value of a list a cut counts ("`properties.thought.maxLength` (102400)", “true”, 256)."""


def _items_cut(clause: str, room: int) -> str | None:
    """A clause listing values ("head adds `a` (1), `b` (2), `c` (3)") cut to the first items that fit and how
    many more, each item whole; None when it lists fewer than three or the first does not fit."""
    parts = _split_top(clause, ", ")
    if len(parts) < 3 or not all(_ITEM.fullmatch(part) for part in parts[1:]):
        return None
    for kept in range(len(parts) - 1, 0, -1):
        said = ", ".join(parts[:kept]) + f", and {len(parts) - kept} more"
        if len(said) <= room:
            return said
    return None


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
    head = closed(_names_or_word(text, room))
    while len(head) > room and room > 1:  # the closing quote and brackets take room of their own
        room -= len(head) - room
        head = closed(_names_or_word(text, room))
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


def closed(cut: str) -> str:
    """A cut text with the quotes and brackets it left open closed, innermost first: inside a quote (curly,
    straight double or a backtick) brackets are a quoted text's own, not ours."""
    still: list[str] = []
    for ch in cut:
        top = still[-1] if still else ""
        if top in _QUOTE_ENDS:
            if ch == top:
                still.pop()
        elif ch in _QUOTES:
            still.append(_QUOTES[ch])
        elif ch in _OPEN:
            still.append(_CLOSE[_OPEN.index(ch)])
        elif ch in _CLOSE and top == ch:
            still.pop()
    return cut + "".join(reversed(still))


_QUOTES: Final = {"“": "”", '"': '"', "`": "`"}
_QUOTE_ENDS: Final = frozenset(_QUOTES.values())
