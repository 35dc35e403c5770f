"""A number answered above every number its call sent is not the same change as that number answered lower
than the original's: one field, two rules, two causes.

held-out-multi-17's plan-counters answers totalThoughts with the largest total of the process (a later call's
smaller plan echoed higher) and leaves a revision's total below its thoughtNumber (12 on the original, 3
here). Seven checks saw the first, each in its own words ("totalThoughts is 1.79e+308 for thoughtNumber
2147483648 and totalThoughts 2147483648 sent, not 2147483648"); they went under RTE-4's cause of the second,
whose pair they merely name the field of. Here a check's words are read for the value it saw against the
numbers it quotes beside it, the pair's for its value against the original's, and opposite directions are
two changes; the departures left saying one field answered outside its call's numbers open a cause of their
own, led by the record stating that the field echoes the request.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from conformance.core.failure_text import readable
from conformance.report.model import RecordVerdict

_NUMBER: Final = r"(?<![\w.\-])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?"
"""A number standing alone, not a part of a word or an ID ("RTE-4", "UTF-16")."""
_PAIR: Final = re.compile(
    rf"(?:^|[ .>])(?P<key>\w+): (?P<was>{_NUMBER}) on the original, (?P<now>{_NUMBER}) here$", re.IGNORECASE)
"""A pair's numbered field ("… → totalThoughts: 12 on the original, 3 here")."""
_SAID: Final = r"\s+(?:came back|is|was|answered|answers|reads)\s+(?P<now>{number})"
_QUOTE_START: Final = re.compile(r"[{\[“]")


def pair_moved(difference: str) -> tuple[str, int] | None:
    """The field a pair's difference is a number of and whether it is higher (1) or lower (-1) here than on
    the original; None for any other difference."""
    found = _PAIR.search(difference)
    if found is None:
        return None
    was, now = float(found["was"]), float(found["now"])
    return (found["key"], 1 if now > was else -1) if now != was else None


def said_moved(message: str, key: str) -> int | None:
    """Whether a check's own words (before any answer or text it quotes) say `key` came back above (1) or
    below (-1) every other number they quote beside it: a value its call never sent; None when they say
    neither."""
    own = _QUOTE_START.split(readable(message), 1)[0]
    found = re.search(rf"\b{re.escape(key)}{_SAID.format(number=_NUMBER)}", own)
    if found is None:
        return None
    now = float(found["now"])
    others = [float(n) for n in re.findall(_NUMBER, own[:found.start("now")] + " " + own[found.end("now"):])]
    if not others:
        return None
    if now > max(others):
        return 1
    if now < min(others):
        return -1
    return None


def moved_apart(messages: Sequence[str], difference: str) -> bool:
    """Whether checks' words that say the pair's numbered field moved all say it moved the other way: they saw
    another rule of the same field (at least one says so)."""
    moved = pair_moved(difference)
    if moved is None:
        return False
    key, sign = moved
    said = [s for m in messages if (s := said_moved(m, key)) is not None]
    return bool(said) and all(s == -sign for s in said)


def moved_alike(messages: Sequence[str]) -> tuple[str, int] | None:
    """The one field and direction every message saying a field moved outside its call's numbers says, None
    when none says so or two say otherwise."""
    seen: set[tuple[str, int]] = set()
    for message in messages:
        own = _QUOTE_START.split(readable(message), 1)[0]
        keys = (m.group(1) for m in re.finditer(r"\b([A-Za-z_]\w*)" + _SAID.format(number=_NUMBER), own))
        for key in dict.fromkeys(keys):
            sign = said_moved(message, key)
            if sign is not None:
                seen.add((key, sign))
    return next(iter(seen)) if len(seen) == 1 else None


def stating_echo(rv: RecordVerdict, key: str) -> bool:
    """Whether a record's statement says the field is echoed from the request: the claim a value its call
    never sent breaks."""
    return bool(re.search(r"\becho", rv.statement, re.IGNORECASE)) and key in rv.statement


__all__ = ["moved_alike", "moved_apart", "pair_moved", "said_moved", "stating_echo"]
