"""report.md: for a pull-request comment or a CI step summary — short first, details folded.

Every string from a server or a generator is escaped (`markdown_parts`): no HTML, no Markdown markup, no
control bytes. The sections and their order are `sections.SECTIONS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final

from conformance.core.create import create_file
from conformance.report.model import Report
from conformance.report.sections import SECTIONS, departures
from conformance.report.sections.section import DETAIL_LEVELS, Detail, Section

BUDGET: Final = 60_000
"""GitHub refuses comments over 65,536 characters: details are shed, level by level, to stay under this."""


def render_markdown(report: Report, sections: Sequence[Section] = SECTIONS) -> str:
    """The most detail that fits BUDGET; past the shortest level, the departures one line each."""
    for detail in DETAIL_LEVELS:
        text = render_markdown_at(report, detail, sections)
        if len(text) <= BUDGET:
            return text
    shortest = [departures.LINES_ONLY if s is departures.SECTION else s for s in sections]
    return render_markdown_at(report, DETAIL_LEVELS[-1], shortest)


def render_markdown_at(report: Report, detail: Detail, sections: Sequence[Section] = SECTIONS) -> str:
    return "\n".join(line for section in sections for line in section.markdown(report, detail))


def write_markdown(report: Report, path: Path) -> None:
    create_file(path, render_markdown(report), replace=True)
