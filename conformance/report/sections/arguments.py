"""That every call was sent through an argument mapping (`--arguments-map`): the verdicts are of a server
called with its own argument names, not the original's, and a reader must know it before any of them."""

from __future__ import annotations

from conformance.report.escape import safe
from conformance.report.markdown_parts import md
from conformance.report.markup import Content, tag
from conformance.report.model import ArgumentCheck, Report
from conformance.report.sections.section import NOT_SHOWN, Detail, NotShown, section
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


def markdown(check: ArgumentCheck, detail: Detail) -> list[str]:
    return [f"> **Arguments mapped:** {md(said(check), 1200)}.", ""]


def html(check: ArgumentCheck) -> list[Content]:
    return [tag("p", tag("strong", "Arguments mapped: "), said(check), ".", class_="gate")]


def terminal(check: ArgumentCheck) -> list[str]:
    return [f"  {safe(said(check), 1200)}"]


SECTION = section("arguments map", view, markdown=markdown, html=html, terminal=terminal)
