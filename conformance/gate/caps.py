"""A cap a record's own failure shows: a count that stops growing at N (the history held at 1,000 thoughts) or
a refusal by a bound (“Maximum number of branches (50) exceeded”), read from the record's line.

A cap is reached only after N items, so a short replay on fresh processes never shows it: its records are
told by their own failure's words, never by a pair (issue 42, nalyk-ts: the history cap and the branch cap
fell under a re-worded refusal's cause, their pairs showing only the fork's other changes)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from conformance.core.failure_text import readable

_PINNED: Final = re.compile(r"thoughtHistoryLength at (\d+), where each accepted call adds one")
"""An accepted call that left the count where it was (conformance/suite/answers.py)."""
_NOT_NEXT: Final = re.compile(r"thoughtHistoryLength (?:is )?(\d+)\b[^:;{]*?\bnot (\d+)\b")
"""A count one short of the calls accepted so far ("the probe call reports thoughtHistoryLength 40, not 41",
"thoughtHistoryLength is 40 after 1 calls filed under 'x' from 40, not 41")."""
_UNRETAINED: Final = re.compile(
    r"\bthe count the accepted calls alone make, the \d+ calls? since the last count answered that the "
    r"original retains though it fails \(after validation\) not retained\b")
"""A count one short because a call that failed late was not retained (conformance/suite/store_model.py): each
accepted call was appended, so the count never stopped (held-out-multi-9's lockout refused that call)."""
_LATE: Final = re.compile(r"\bafter the late failure\b")
"""A count read after a call the original fails late, having appended it (conformance/suite/test_errors.py):
one short there is that call not retained, refused before the append, not a count that stopped
(held-out-multi-14's branch-workspaces: a new branch check throwing before the append read as "the history
stops growing at 2 thoughts")."""
_DUE: Final = re.compile(r"thoughtHistoryLength (\d+) was due")
"""A count due after accepted calls (test_store.py's growth check); the answer it quotes holds what came."""
_CAME: Final = re.compile(r'"thoughtHistoryLength":\s*(\d+)')
_BECAME: Final = re.compile(r"\bcount (\d+) became (\d+)\b")
_FELL: Final = re.compile(r"answered thoughtHistoryLength (\d+) to a probe [^:;]*?after it answered (\d+)\b")
"""The shared process's count between two probes (conformance/suite/session.py: ABS-11's line)."""
_THEN: Final = re.compile(r"thoughtHistoryLength is (\d+), then (\d+)\b")
"""A count read twice, in order (the episode check: "thoughtHistoryLength is 20, then 12 on an episode …")."""
TRIMMED: Final = "the history drops thoughts"
"""The key of every count line once a line of the run shows the count falling: a store trimmed (by size, by
age), not capped, whose count stops rising because items leave (issue 42, fork-memory-budget)."""
_BOUND: Final = re.compile(r"refused by a bound, \"([^\"]{1,200})\"")
"""A refusal in the words of a bound on the store's size (conformance/suite/answers.py)."""
_REFUSED: Final = re.compile(
    r"\bcall was (?:refused as invalid|rejected): isError\b.{0,40}?\"error\":\s*\"([^\"]{1,200})\"")
"""A call this server refused, in its own words, where the original accepted it (suite/answers.py's line)."""
_LIMIT: Final = re.compile(r"\bmust be (?:between \d+ and \d+|at most \d+|no (?:longer|more) than \d+)"
                           r" characters\b|\bexceeds? (?:the )?maximum length\b")
_INTEGER: Final = re.compile(r"^Invalid \w+: must be (a positive|a non-negative|an) integer\b")
_PAIR: Final = re.compile(r"\b(\w+):? (?:is )?required when (\w+) is \w+")


def cap_seen(line: str) -> str:
    """The cap a record's line says its failure was, as one key for every record that met it: "the count
    stops at N" or "refused by the bound “…”" (its numbers kept: a cap of 50 is not one of 100); empty when
    the line says no cap. A count held where it was is a cap only when it sat at one value: a count that
    fell back, or grew by two, is another change (a reset, a refused call appended); a count short because a
    refused call was not retained, every accepted call appended, is no cap (a lockout after refusals)."""
    said = readable(line)
    found = _BOUND.search(said)
    if found:
        return f"refused by the bound “{found.group(1)}”"
    refused = _REFUSED.search(said)
    if refused:
        return _limit_in(refused.group(1))
    pinned = _PINNED.search(said)
    if pinned:
        return _stops_at(int(pinned.group(1)))
    short = _NOT_NEXT.search(said)
    if (short and int(short.group(2)) == int(short.group(1)) + 1 and not _UNRETAINED.search(said)
            and not _LATE.search(said)):
        return _stops_at(int(short.group(1)))
    due, came = _DUE.search(said), _CAME.search(said)
    if due and came and int(came.group(1)) == int(due.group(1)) - 1:
        return _stops_at(int(came.group(1)))
    became = _BECAME.search(said)
    if became and became.group(1) == became.group(2):
        return _stops_at(int(became.group(1)))
    return ""


def fell(line: str) -> tuple[int, int] | None:
    """The count before and after a fall a line shows (the shared process answered a smaller count to a
    probe than to the one before it, or a count that became smaller), else None."""
    said = readable(line)
    found = _FELL.search(said)
    if found and int(found.group(1)) < int(found.group(2)):
        return int(found.group(2)), int(found.group(1))
    became = _BECAME.search(said) or _THEN.search(said)
    if became and int(became.group(2)) < int(became.group(1)):
        return int(became.group(1)), int(became.group(2))
    short = _NOT_NEXT.search(said)
    before = _count_before(said, short)
    if short and before is not None and int(short.group(1)) < before:
        return before, int(short.group(1))
    return None


_FROM: Final = re.compile(r"\bfrom (\d+), not \d+\b")
_ONE_CALL: Final = re.compile(r"\bone more than before it\b")


def _count_before(said: str, short: re.Match[str] | None) -> int | None:
    """The count a line says held before the calls it counts: its "from N", or one less than the count due
    when the line says one call was due; None when it says only "after the calls accepted so far" (the count
    due then adds every call since the last count, and a count that did not rise for two of them never fell:
    held-out-multi-13's history keyed by thoughtNumber was said to fall from 79 to 78)."""
    if short is None:
        return None
    start = _FROM.search(said)
    if start:
        return int(start.group(1))
    return int(short.group(2)) - 1 if _ONE_CALL.search(said) else None


def short_of_due(line: str) -> bool:
    """Whether a line says a count was due after accepted calls and does not show one as large came (its
    answer quoted with a smaller count, or cut before it): read as the store's count only beside a fall."""
    said = readable(line)
    due = _DUE.search(said)
    if not due:
        return False
    came = _CAME.search(said)
    return came is None or int(came.group(1)) < int(due.group(1))


def trimmed_headline(lines: Sequence[str]) -> str:
    """What a trimmed store's cause says, from its records' own lines: the fall seen, and where a count
    held, where it held; never a cap (a count that stops rising because items leave is no cap)."""
    fall = next((f for f in map(fell, lines) if f is not None), None)
    held = sorted({int(k.removeprefix("the count stops at ")) for k in map(cap_seen, lines)
                   if k.startswith("the count stops at ")})
    parts = [f"thoughtHistoryLength fell from {fall[0]} to {fall[1]} between two answers of one process"
             if fall else ""]
    if held:
        at = ", ".join(map(str, held))
        parts.append(f"an accepted call left it at {at}, where each accepted call adds one")
    said = "; ".join(p for p in parts if p)
    return (f"{TRIMMED} while the process lives: {said}; the original keeps every thought, its count only "
            "grows")


SIGN_DROPPED: Final = "numbers sent negative answered positive"
"""The key of every line showing a number sent negative and answered as its absolute value (issue 42,
fork-friendly-errors: OBJ-14's thoughtNumber and OBJ-1/a1's totalThoughts led two causes of one change)."""
_NUMBER: Final = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.])", re.IGNORECASE)
_ECHO_WORDS: Final = re.compile(r"\bsent\b|\banswered\b|\bcame back\b")


_RECORD_NAMED: Final = re.compile(r"\b[A-Z]{2,5}-\d+[a-z]?(?:/[a-z]\d+)?\b")
"""A record's ID in a line ("OBJ-14 contradicted: …"): its number is no number sent or answered."""


def sign_dropped(line: str) -> bool:
    """Whether a line's own words (before an answer it quotes whole) hold a number sent negative beside its
    absolute value, in words of what was sent and what came back ("thoughtNumber -3.5 sent, 3.5 answered")."""
    said = readable(line)
    own = said[:found.start()] if (found := re.search(r"\{\s*\"", said)) else said
    for clause in own.split(";"):  # both numbers in one clause: "-1 refused; 1 answered" is two things
        numbers = {float(n) for n in _NUMBER.findall(_RECORD_NAMED.sub("", clause))}
        if _ECHO_WORDS.search(clause) and any(n < 0 and -n in numbers for n in numbers):
            return True
    return False


def sign_headline(lines: Sequence[str]) -> str:
    """What the cause of numbers answered without their sign says, with the first line showing it."""
    shown = next((readable(line) for line in lines if sign_dropped(line)), "")
    own = re.sub(r"^[A-Z]+-[A-Z0-9]+[a-z]?(?:/[a-z]\d+)? contradicted: ", "", shown)
    own = own[:found.start()] if (found := re.search(r"(?::\s*the answer)?\s*\{\s*\"", own)) else own
    return (f"numbers sent negative are answered as their absolute value, where the original echoes them as "
            f"sent: {own[:200]}")


def _limit_in(words: str) -> str:
    """A refusal's key when its words are a limit a fork adds to calls the original accepts: a length limit
    (its words kept: a limit of 10,000 is not one of 50,000), numbers refused unless integers (one key for
    every field: one check), a field refused without its companion (its words kept); else empty."""
    if _LIMIT.search(words):
        return f"refused by the limit “{words}”"
    integer = _INTEGER.search(words)
    if integer:
        return f"refused unless {integer.group(1)} integer"
    if _PAIR.search(words):
        return f"refused by the pair “{words}”"
    return ""


def is_call_limit(cap: str) -> bool:
    """Whether a key is a limit on calls (`_limit_in`), which a short pair reaches, not a store's cap."""
    return cap.startswith(("refused by the limit", "refused unless", "refused by the pair"))


def limit_shown(cap: str, said: str) -> bool:
    """Whether a pair's difference (or any line) shows the limit `cap` names: its words, or for the integer
    check any field's "must be … integer" refusal."""
    if cap.startswith("refused unless"):
        return f"must be {cap.removeprefix('refused unless ')}" in said
    words = cap.partition("“")[2].removesuffix("”")
    return bool(words) and words in said


def _stops_at(count: int) -> str:
    """A count cap's key; a count held at 0 or 1 is a store that keeps nothing, not a cap, and says none."""
    return f"the count stops at {count}" if count > 1 else ""


_STREAK: Final = re.compile(r"\bin a row\b|\bconsecutive(?:ly)?\b|\b(?:invalid|failed|refused|rejected|bad) "
                           r"(?:calls|attempts|requests|inputs)\b", re.IGNORECASE)
"""Words of a bound on refused calls (“Too many invalid calls in a row”), not on the store's size: a lockout
the calls before it built (held-out-multi-9's fork-model-guard read "met once earlier calls filled it")."""


_RATE: Final = re.compile(
    r"\brate[- ]limit|\bper (?:second|minute|hour)\b|\b(?:in|within|per|every) (?:\d+ ?)?"
    r"(?:ms|milliseconds?|seconds?|secs?|s|minutes?|mins?|hours?)\b|\btoo many requests\b|\bthrottl",
    re.IGNORECASE)
"""Words of a bound on how many calls come within a time (“Rate limit exceeded: at most 40 calls in 5
seconds”), not on the store's size: calls spaced out are accepted (held-out-multi-14's gateway read "the
original's store has no size bound (met once earlier calls filled it)")."""


def cap_headline(cap: str) -> str:
    """What a cap cause's headline says of the cap, in a reader's words."""
    found = re.fullmatch(r"the count stops at (\d+)", cap)
    if found:
        return (f"the history stops growing at {found.group(1)} thoughts: an accepted call leaves "
                f"thoughtHistoryLength at {found.group(1)}, where the original keeps every thought")
    if cap.startswith("refused by the limit"):
        return f"calls are {cap}, where the original accepts them: it sets no length limit"
    if cap.startswith("refused unless"):
        must = cap.removeprefix("refused unless ")
        kind = must.partition(" ")[2]
        return (f"calls whose numbers are not {kind}s are refused (“… must be {must}”), where the original "
                f"accepts them")
    if cap.startswith("refused by the pair"):
        return f"calls are {cap}, where the original accepts either field alone"
    if _STREAK.search(cap):
        return (f"calls are {cap} after refused calls, where the original refuses only what its four guards "
                f"refuse, whatever came before")
    if _RATE.search(cap):
        return (f"calls are {cap}, a limit on calls within a time, where the original accepts calls however "
                f"fast they come")
    return f"calls are {cap}, where the original's store has no size bound (met once earlier calls filled it)"
