"""Why the target could not be checked, when starting it before the suite failed."""

from __future__ import annotations

from conformance.report.markdown_parts import md
from conformance.report.markup import Content, tag
from conformance.report.model import Preflight, Report
from conformance.report.sections.section import NOT_SHOWN, Detail, NotShown, section
from conformance.report.text import is_comparison_only


def view(report: Report) -> Preflight | NotShown:
    if is_comparison_only(report) or report.preflight.ok:
        return NOT_SHOWN
    return report.preflight


def markdown(preflight: Preflight, detail: Detail) -> list[str]:
    return [f"> The target could not be checked: {md(preflight.error or 'unknown error', 600)}", ""]


def html(preflight: Preflight) -> list[Content]:
    parts: list[Content] = [
        tag("p", "The target could not be checked: ", tag("code", preflight.error or ""), class_="gate fail")
    ]
    if preflight.stderr_tail:
        parts += [tag("h4", "Its stderr (tail)"), tag("pre", preflight.stderr_tail)]
    return parts


SECTION = section("preflight", view, markdown=markdown, html=html)
