"""A cause's headline says what each tool a target adds does, as RTE-1's check learnt it by calling the tool
on processes of its own (`calls/other_tools.py`): the replayed tools/list only says "`get_thought_history`
added", which leaves a reader to guess whether it reads the store or empties it (issue 42)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from conformance.calls.other_tools import MARK, said_in
from conformance.core.words import cut_text
from conformance.report.model import RecordVerdict, RootCause

SUMMARY_MAX: Final = 400
"""A cause's headline, at most (as gate/evidence.py cuts it)."""
SAID_MAX: Final = 240
"""The tools' words within it, at most: the replay's own difference keeps the rest."""
SAID_MIN: Final = 120
"""The tools' words within it, at least: a long headline is cut to leave them this much."""
_COUNT: Final = re.compile(r" \(\d+ (?:checks? fails?|differences?)\)$")


def with_tools_said(causes: Sequence[RootCause], records: Sequence[RecordVerdict]) -> list[RootCause]:
    """Each cause whose records' failing checks say what added tools do (`said_in`), with those words after
    its headline: a headline that is the check's own failure, cut inside them, has its cut words replaced
    (they began with `MARK`); the headline before them is kept whole when it leaves them `SAID_MIN`, else
    cut to."""
    by_id = {rv.id: rv for rv in records}
    out: list[RootCause] = []
    for cause in causes:
        messages = [test.message for record in cause.records if record in by_id
                    for test in by_id[record].tests if test.status in ("failed", "error")]
        said = said_in(messages)
        if not said or f"; {said[0]}" in cause.summary:
            out.append(cause)
            continue
        headline, count = _without_said(cause.summary)
        room = SUMMARY_MAX - len(count) - 2
        if room - len(headline) < SAID_MIN:
            headline = cut_text(headline, room - SAID_MIN)
        clause = cut_text(said[0], min(SAID_MAX, room - len(headline)))
        out.append(cause.model_copy(update={"summary": f"{headline}; {clause}{count}"}))
    return out


def _without_said(summary: str) -> tuple[str, str]:
    """The headline before any words of `MARK` it holds, and the count it ends with (" (2 checks fail)")."""
    count = _COUNT.search(summary)
    tail = count.group(0) if count else ""
    at = summary.find(MARK.strip())
    if at < 0:
        return (summary[: len(summary) - len(tail)] if tail else summary), tail
    return summary[:at].rstrip(" ;,"), tail


__all__ = ["with_tools_said"]
