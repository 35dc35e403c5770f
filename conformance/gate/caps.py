"""A cap a record's own failure shows: a count that stops growing at N (the history held at 1,000 thoughts) or
a refusal by a bound (“Maximum number of branches (50) exceeded”), read from the record's line.

A cap is reached only after N items, so a short replay on fresh processes never shows it: its records are
told by their own failure's words, never by a pair (issue 42, nalyk-ts: the history cap and the branch cap
fell under a re-worded refusal's cause, their pairs showing only the fork's other changes)."""

from __future__ import annotations

import re
from typing import Final

from conformance.core.failure_text import readable

_PINNED: Final = re.compile(r"thoughtHistoryLength at (\d+), where each accepted call adds one")
"""An accepted call that left the count where it was (conformance/suite/answers.py)."""
_NOT_NEXT: Final = re.compile(r"thoughtHistoryLength (?:is )?(\d+)\b[^:;{]*?\bnot (\d+)\b")
"""A count one short of the calls accepted so far ("the probe call reports thoughtHistoryLength 40, not 41",
"thoughtHistoryLength is 40 after 1 calls filed under 'x' from 40, not 41")."""
_DUE: Final = re.compile(r"thoughtHistoryLength (\d+) was due")
"""A count due after accepted calls (test_store.py's growth check); the answer it quotes holds what came."""
_CAME: Final = re.compile(r'"thoughtHistoryLength":\s*(\d+)')
_BECAME: Final = re.compile(r"\bcount (\d+) became (\d+)\b")
_BOUND: Final = re.compile(r"refused by a bound, \"([^\"]{1,200})\"")
"""A refusal in the words of a bound on the store's size (conformance/suite/answers.py)."""


def cap_seen(line: str) -> str:
    """The cap a record's line says its failure was, as one key for every record that met it: "the count
    stops at N" or "refused by the bound “…”" (its numbers kept: a cap of 50 is not one of 100); empty when
    the line says no cap. A count held where it was is a cap only when it sat at one value: a count that
    fell back, or grew by two, is another change (a reset, a refused call appended)."""
    said = readable(line)
    found = _BOUND.search(said)
    if found:
        return f"refused by the bound “{found.group(1)}”"
    pinned = _PINNED.search(said)
    if pinned:
        return _stops_at(int(pinned.group(1)))
    short = _NOT_NEXT.search(said)
    if short and int(short.group(2)) == int(short.group(1)) + 1:
        return _stops_at(int(short.group(1)))
    due, came = _DUE.search(said), _CAME.search(said)
    if due and came and int(came.group(1)) == int(due.group(1)) - 1:
        return _stops_at(int(came.group(1)))
    became = _BECAME.search(said)
    if became and became.group(1) == became.group(2):
        return _stops_at(int(became.group(1)))
    return ""


def _stops_at(count: int) -> str:
    """A count cap's key; a count held at 0 or 1 is a store that keeps nothing, not a cap, and says none."""
    return f"the count stops at {count}" if count > 1 else ""


def cap_headline(cap: str) -> str:
    """What a cap cause's headline says of the cap, in a reader's words."""
    found = re.fullmatch(r"the count stops at (\d+)", cap)
    if found:
        return (f"the history stops growing at {found.group(1)} thoughts: an accepted call leaves "
                f"thoughtHistoryLength at {found.group(1)}, where the original keeps every thought")
    return f"calls are {cap}, where the original's store has no size bound (met once earlier calls filled it)"
