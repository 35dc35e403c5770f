"""The title and the report's first sentence: the gate's, or what a comparison found."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.report.markdown_parts import md
from conformance.report.markup import Content, tag
from conformance.report.model import Report
from conformance.report.sections.section import Detail, NotShown, section
from conformance.report.text import headline, is_comparison_only


@dataclass(frozen=True)
class Title:
    spec: str
    compared: tuple[str, str] | None
    """The two targets of a comparison-only report, which report.md names in its title."""
    headline: str
    passed: bool


def view(report: Report) -> Title | NotShown:
    c = report.comparison
    compared = (c.a.spec, c.b.spec) if is_comparison_only(report) and c is not None else None
    return Title(report.target.spec, compared, headline(report), report.gate.passed)


def markdown(title: Title, detail: Detail) -> list[str]:
    if title.compared is not None:
        heading = f"# Comparison: {md(title.compared[0])} vs {md(title.compared[1])}"
    else:
        heading = f"# Conformance report: {md(title.spec)}"
    return [heading, "", f"**{md(title.headline, None)}**", ""]


def html(title: Title) -> list[Content]:
    return [
        tag("h1", "Conformance report: ", tag("code", title.spec)),
        tag("p", title.headline, class_=f"gate {'pass' if title.passed else 'fail'}"),
    ]


SECTION = section("title", view, markdown=markdown, html=html)
