"""report.html's links to the sections it shows; a comparison's page links each root cause as well, so a
reviewer moves through a `compare` report as through a run report."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.report.markup import Content
from conformance.report.model import Report
from conformance.report.sections.comparison import NOT_GROUPED, cause_anchor
from conformance.report.sections.section import Anchor, section
from conformance.report.style import toc
from conformance.report.text import difference_groups, is_comparison_only


def view(report: Report) -> tuple[tuple[str, str], ...]:
    """The links under the comparison's own (its root causes, then the differences of none)."""
    if not is_comparison_only(report):
        return ()
    return tuple(
        (NOT_GROUPED, "Not grouped") if cause is None else (cause_anchor(cause.id), cause.id)
        for cause, _ in difference_groups(report)
    )


def links(causes: tuple[tuple[str, str], ...], anchors: Sequence[Anchor]) -> list[Content]:
    entries: list[tuple[str, str]] = []
    for anchor in anchors:
        entries.append((anchor.id, anchor.label))
        if anchor.id == "differences":
            entries += causes
    return [toc(entries)]


SECTION = section("contents", view, links=links)
