"""Why the run ended before its last test (SIGTERM, the deadline, a target that kept failing)."""

from __future__ import annotations

from conformance.report.markdown_parts import md
from conformance.report.model import Report
from conformance.report.sections.section import NOT_SHOWN, Detail, NotShown, section
from conformance.report.text import is_comparison_only


def view(report: Report) -> tuple[str, bool] | NotShown:
    """Why it stopped, and whether it was a comparison (which has no records to leave unrun)."""
    if not report.run.interrupted:
        return NOT_SHOWN
    return report.run.interrupted, is_comparison_only(report)


def markdown(stopped: tuple[str, bool], detail: Detail) -> list[str]:
    why, comparison = stopped
    if comparison:
        return [f"> The comparison stopped early — {md(why, 600)}; what it found so far is not reported.", ""]
    return [f"> The run stopped early — {md(why, 600)}; unfinished records are not run.", ""]


SECTION = section("interrupted", view, markdown=markdown)
