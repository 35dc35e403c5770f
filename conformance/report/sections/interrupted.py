"""Why the run ended before its last test (SIGTERM, the deadline, a target that kept failing)."""

from __future__ import annotations

from conformance.report.markdown_parts import md
from conformance.report.model import Report
from conformance.report.sections.section import NOT_SHOWN, Detail, NotShown, section
from conformance.report.text import is_comparison_only


def view(report: Report) -> str | NotShown:
    if is_comparison_only(report) or not report.run.interrupted:
        return NOT_SHOWN
    return report.run.interrupted


def markdown(why: str, detail: Detail) -> list[str]:
    return [f"> The run stopped early — {md(why, 600)}; unfinished records are not run.", ""]


SECTION = section("interrupted", view, markdown=markdown)
