"""That every call was sent through an argument mapping (`--arguments-map`): the verdicts are of a server
called with its own argument names, not the original's, and a reader must know it before any of them."""

from __future__ import annotations

from conformance.report.model import ArgumentCheck, Report
from conformance.report.sections.section import NOT_SHOWN, NotShown, notice
from conformance.report.text import is_comparison_only


def view(report: Report) -> ArgumentCheck | NotShown:
    check = report.preflight.arguments
    if is_comparison_only(report) or check is None or not check.arguments_map:
        return NOT_SHOWN
    return check


def said(check: ArgumentCheck) -> str:
    """One sentence: where the mapping came from and what it renames."""
    renamed = ", ".join(f"{k} → {v}" for k, v in check.arguments_map.items())
    return (f"every call was sent through --arguments-map {check.arguments_map_from or 'FILE'} ({renamed}): "
            "the records are checked on the target's own argument names, not the original's")


SECTION = notice("arguments map", "Arguments mapped", view, said)
