"""A cause's check that ended or signalled the process, whose failure its headline does not say, said after
the headline: a second change seen by the same record (issue 42: held-out-multi-14's background-worker, its
JSON banner and SIGHUP no longer ending the process, both RTE-10's, read "RTE-10 departs — stderr reads …
(2 checks fail)", the signal never said).

The way a check ends a process is its kind (`TestRef.ends_a_process`, else a signal's name in its words): a
headline naming that way (“stdin”, “SIGHUP”) already speaks of that end, and a check of another kind is
another change the headline does not say.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from conformance.calls.other_tools import outside
from conformance.core.failure_text import readable, spoken
from conformance.gate.refusals_said import SUMMARY_MAX
from conformance.report.model import RecordVerdict, RootCause, TestRef

_SIGNAL: Final = re.compile(r"\bSIG[A-Z]{2,5}\b")
_WAYS: Final = {"stdin": "stdin", "stdout": "stdout"}
"""How each process-ending kind is named in a headline that speaks of it."""


def _ended_by(test: TestRef) -> str:
    """The way a failing check ended the process: its mark, else a signal named in its words; empty for a
    check that ended none."""
    if test.ends_a_process:
        return test.ends_a_process
    signal = _SIGNAL.search(readable(test.message))
    return signal.group(0) if signal else ""


def with_ends_said(causes: Sequence[RootCause], records: Sequence[RecordVerdict]) -> list[RootCause]:
    """Each cause with its first failing check that ended the process in a way its headline does not name,
    in that check's words, after the headline (cut to leave it room)."""
    by_id = {rv.id: rv for rv in records}
    out: list[RootCause] = []
    for cause in causes:
        unsaid = ""
        for record in cause.records:
            for test in by_id[record].tests if record in by_id else []:
                how = _ended_by(test) if test.status in ("failed", "error") and test.message else ""
                if how and _WAYS.get(how, how) not in cause.summary:
                    unsaid = spoken(outside(readable(test.message)), test.nodeid, SUMMARY_MAX // 2)
                    break
            if unsaid:
                break
        if not unsaid or unsaid in cause.summary:
            out.append(cause)
            continue
        clause = f"and another check: {unsaid}"[:SUMMARY_MAX // 2]
        room = SUMMARY_MAX - len(clause) - 2
        headline = cause.summary if len(cause.summary) <= room else cause.summary[:room - 1] + "…"
        out.append(cause.model_copy(update={"summary": f"{headline}; {clause}"}))
    return out


__all__ = ["with_ends_said"]
