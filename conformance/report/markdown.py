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
from conformance.report.sections import SECTIONS, claims, departures, gate, records, root_causes
from conformance.report.sections.section import DETAIL_LEVELS, Detail, Section

BUDGET: Final = 60_000
"""GitHub refuses comments over 65,536 characters: details are shed, level by level, to stay under this."""

SQUEEZED: Final[tuple[dict[str, Section], ...]] = (
    {"departures": departures.LINES_ONLY},
    {"departures": departures.LINES_ONLY, "gate": gate.POINTING, "root causes": root_causes.FOLDED},
    {"departures": departures.LINES_ONLY, "gate": gate.POINTING, "root causes": root_causes.FOLDED,
     "records": records.POINTING, "claims": claims.SHORT},
    {"departures": departures.IDS_ONLY, "gate": gate.POINTING, "root causes": root_causes.FOLDED,
     "records": records.POINTING, "claims": claims.SHORT},
)
"""Past the shortest detail level, the sections that repeat a line per departure (or per record, per
observation) replaced, step by step, by shorter forms of themselves: the departures one line each; then the
gate's tables and the unexplained departures as IDs; then the records and the claims' observations as IDs
and counts too; then the departures by ID alone. Every departing record's ID stays in each."""

LEFT_OUT: Final = ("\n_report.md stops here to keep within its {budget:,}-character budget: the rest is in "
                   "report.html and report.json._\n")


def render_markdown(report: Report, sections: Sequence[Section] = SECTIONS) -> str:
    """The most detail that fits BUDGET: the detail levels, then the squeezed forms of the sections; a
    report too long for even the last (thousands of records) cut at a line, saying where the rest is."""
    for detail in DETAIL_LEVELS:
        text = render_markdown_at(report, detail, sections)
        if len(text) <= BUDGET:
            return text
    for squeezed in SQUEEZED:
        text = render_markdown_at(report, DETAIL_LEVELS[-1], [squeezed.get(s.name, s) for s in sections])
        if len(text) <= BUDGET:
            return text
    note = LEFT_OUT.format(budget=BUDGET)
    return text[: BUDGET - len(note)].rsplit("\n", 1)[0] + note


def render_markdown_at(report: Report, detail: Detail, sections: Sequence[Section] = SECTIONS) -> str:
    return "\n".join(line for section in sections for line in section.markdown(report, detail))


def write_markdown(report: Report, path: Path) -> None:
    create_file(path, render_markdown(report), replace=True)
