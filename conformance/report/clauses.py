"""A cause's headline cut for a page that cannot show it whole (atlas.md, a pull request's comment): at a
clause ("; "), saying how many clauses it leaves out, never inside a word; the full text stays in JSON and
HTML."""

from __future__ import annotations

import re
from typing import Final

HEADLINE_CHARS: Final = 300
"""Characters of a cause's headline a short page shows before it cuts at a clause (the full text is in
the JSON and HTML beside it)."""

_COUNT: Final = re.compile(r" \(\d+ differences?\)$")
_CLAUSE: Final = "; "


def cut_headline(text: str, limit: int = HEADLINE_CHARS) -> str:
    """`text` whole when it fits, else its leading clauses (split at "; ") that fit and "and N more",
    keeping its closing "(N differences)"; a first clause longer than `limit` is cut at its last ", " or
    space before it, never inside a word."""
    if len(text) <= limit:
        return text
    count = _COUNT.search(text)
    tail = count.group(0) if count else ""
    body = text[: len(text) - len(tail)]
    clauses = body.split(_CLAUSE)
    kept: list[str] = []
    for clause in clauses:
        more = len(clauses) - len(kept) - 1
        candidate = _CLAUSE.join([*kept, clause])
        if len(candidate) + len(_more(more)) + len(tail) > limit:
            break
        kept.append(clause)
    if not kept:
        rest = _more(len(clauses) - 1)
        room = max(limit - len(rest) - len(tail) - 2, 1)
        head = clauses[0][: room + 1]
        comma = head.rfind(", ")
        cut = comma if comma >= room // 2 else head.rfind(" ")
        head = head[:cut] if cut > 0 else head[:room]
        return f"{head.rstrip(',;: ')} …{rest}{tail}"
    return _CLAUSE.join(kept) + _more(len(clauses) - len(kept)) + tail


def _more(n: int) -> str:
    return f"; and {n} more" if n else ""
