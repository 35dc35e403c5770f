"""A cause's headline says a request its records' checks saw refused where the original answers it (a
tools/list with a cursor refused "Invalid cursor"): the headline is the replayed pair's first difference,
which says one change of the record, and such a refusal went into no sentence of report.md (issue 42,
held-out-multi-12's paged-history fork). The sentence is the check's own (core/refused_requests.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from conformance.core.refused_requests import refusals_said
from conformance.report.model import RecordVerdict, RootCause

SUMMARY_MAX: Final = 400
"""A cause's headline, at most (as gate/evidence.py cuts it)."""


def with_refusals_said(causes: Sequence[RootCause], records: Sequence[RecordVerdict]) -> list[RootCause]:
    """Each cause whose records' failing checks say a request refused (`refusals_said`) that its headline
    does not, with the first such sentence after its headline ("…; tools/list with `cursor: "next"` is
    refused — “…” — where the original lists its tool"), the headline cut to leave it room."""
    by_id = {rv.id: rv for rv in records}
    out: list[RootCause] = []
    for cause in causes:
        messages = [test.message for record in cause.records if record in by_id
                    for test in by_id[record].tests if test.status in ("failed", "error")]
        unsaid = [clause for clause in refusals_said(messages) if clause not in cause.summary]
        if not unsaid:
            out.append(cause)
            continue
        clause = unsaid[0][:SUMMARY_MAX // 2]
        room = SUMMARY_MAX - len(clause) - 2
        headline = cause.summary if len(cause.summary) <= room else cause.summary[:room - 1] + "…"
        out.append(cause.model_copy(update={"summary": f"{headline}; {clause}"}))
    return out


__all__ = ["with_refusals_said"]
