"""The records no test decided, grouped by why (the terminal; report.md and report.html give each record's
reason in their records table)."""

from __future__ import annotations

from conformance.report.escape import safe
from conformance.report.model import Report
from conformance.report.sections.section import NOT_SHOWN, NotShown, section
from conformance.report.text import is_comparison_only, stopped_before_checks

Groups = tuple[tuple[str, tuple[str, ...]], ...]
"""(reason, the records not run for it), in catalog order of each reason's first record."""


def view(report: Report) -> Groups | NotShown:
    not_run = [rv for rv in report.records if rv.verdict == "not run"]
    if is_comparison_only(report) or not not_run or stopped_before_checks(report):
        return NOT_SHOWN
    reasons = dict.fromkeys(rv.reason for rv in not_run)
    return tuple((reason, tuple(rv.id for rv in not_run if rv.reason == reason)) for reason in reasons)


SHOWN_IDS = 8
"""A group of more records is shown by its count and first IDs (`--select` leaves most records out)."""


def terminal(groups: Groups) -> list[str]:
    return [f"  not run  {safe(_ids(ids), 120)}: {safe(reason, 120)}" for reason, ids in groups]


def _ids(ids: tuple[str, ...]) -> str:
    if len(ids) <= SHOWN_IDS:
        return ", ".join(ids)
    return f"{len(ids)} records ({', '.join(ids[:3])}, …)"


SECTION = section("not run", view, terminal=terminal)
