"""A cause's headline says what each tool a target adds does, as RTE-1's check learnt it by calling the tool
on processes of its own (`calls/other_tools.py`): the replayed tools/list only says "`get_thought_history`
added", which leaves a reader to guess whether it reads the store or empties it (issue 42)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from conformance.calls.other_tools import said_in
from conformance.core.words import cut_text
from conformance.report.model import RecordVerdict, RootCause

SUMMARY_MAX: Final = 400
"""A cause's headline, at most (as gate/evidence.py cuts it)."""
SAID_MAX: Final = 240
"""The tools' sentences within it, at most: the replay's own difference keeps the rest."""


def with_tools_said(causes: Sequence[RootCause], records: Sequence[RecordVerdict]) -> list[RootCause]:
    """Each cause whose records' failing checks say what added tools do (`said_in`) that its headline does
    not, with those words after its headline, the headline cut to leave them room."""
    by_id = {rv.id: rv for rv in records}
    out: list[RootCause] = []
    for cause in causes:
        messages = [test.message for record in cause.records if record in by_id
                    for test in by_id[record].tests if test.status in ("failed", "error")]
        unsaid = [clause for clause in said_in(messages) if clause[:80] not in cause.summary]
        if not unsaid:
            out.append(cause)
            continue
        clause = cut_text(unsaid[0], SAID_MAX)
        room = SUMMARY_MAX - len(clause) - 2
        headline = cause.summary if len(cause.summary) <= room else cut_text(cause.summary, room)
        out.append(cause.model_copy(update={"summary": f"{headline}; {clause}"}))
    return out


__all__ = ["with_tools_said"]
