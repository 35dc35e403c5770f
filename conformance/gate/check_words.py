"""What a record's failing checks say, as a reader sees them: the one reader the root causes' placing passes
share (gate/evidence, gate/unsequenced)."""

from __future__ import annotations

from conformance.calls.other_tools import outside
from conformance.core.failure_text import readable, unspoken
from conformance.report.model import RecordVerdict, TestRef


def failing_checks(rv: RecordVerdict) -> list[tuple[TestRef, str]]:
    """The record's failing checks with their messages as a reader sees them, those saying nothing left out
    (and the words about added tools RTE-1's check calls, `outside`: other calls than the check's)."""
    said = ((t, outside(readable(t.message))) for t in rv.tests
            if t.status in ("failed", "error") and t.message)
    return [(t, m) for t, m in said if m and not unspoken(m)]


def check_messages(rv: RecordVerdict) -> list[str]:
    """The record's failing checks' messages, as a reader sees them, those saying nothing left out."""
    return [m for _, m in failing_checks(rv)]


__all__ = ["check_messages", "failing_checks"]
