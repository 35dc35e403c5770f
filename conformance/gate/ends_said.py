"""A cause's check of another way than the checks its headline says (one that ended or signalled the
process beside a headline of none, or the reverse), said after the headline: a second change seen by the
same record (issue 42: held-out-multi-14's background-worker, its JSON banner and SIGHUP no longer ending the
process, both RTE-10's, read "RTE-10 departs — stderr reads … (2 checks fail)", the signal never said; in
another run the signal headed it and the banner went unsaid).

The way a check ends a process is its kind (`TestRef.ends_a_process`, else a signal's name in its words):
the ways of the checks a headline quotes are said; a check of another way is another change. A headline
quoting no check (a replayed pair's) names a way by its word (“stdin”, “SIGHUP”).
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
    """Each cause with its first failing check of another way than the checks its headline says (one that
    ended the process beside a headline of none, or none beside a headline of a signal), in that check's
    words, after the headline (cut to leave it room). A headline saying no check's words (a replayed pair's)
    takes a check that ended the process in a way it does not name."""
    by_id = {rv.id: rv for rv in records}
    out: list[RootCause] = []
    for cause in causes:
        failing = [(test, _words(test)) for record in cause.records if record in by_id
                   for test in by_id[record].tests if test.status in ("failed", "error") and test.message]
        ways = {_ended_by(test) for test, words in failing if words[:_SAID] in cause.summary}
        unsaid = next((words for test, words in failing if words[:_SAID] not in cause.summary and (
            _ended_by(test) not in ways if ways
            else bool(_ended_by(test)) and _WAYS.get(_ended_by(test), _ended_by(test)) not in cause.summary)),
            "")
        if not unsaid:
            out.append(cause)
            continue
        clause = f"and another check: {unsaid}"[:SUMMARY_MAX // 2]
        room = SUMMARY_MAX - len(clause) - 2
        headline = cause.summary if len(cause.summary) <= room else cause.summary[:room - 1] + "…"
        out.append(cause.model_copy(update={"summary": f"{headline}; {clause}"}))
    return out


_SAID: Final = 60
"""How much of a check's words a headline quoting it holds (a headline cuts its words at 240 characters)."""


def _words(test: TestRef) -> str:
    """A failing check's words as a headline says them."""
    return spoken(outside(readable(test.message)), test.nodeid, SUMMARY_MAX // 2)


__all__ = ["with_ends_said"]
