"""The claims of the documents (CLM-*), each judged from what the suite observed for or against it."""

from __future__ import annotations

from conformance.report.html_parts import table
from conformance.report.markdown_parts import md
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, tag
from conformance.report.model import ClaimVerdict, Report
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, section
from conformance.report.text import is_comparison_only


def view(report: Report) -> tuple[ClaimVerdict, ...] | NotShown:
    if is_comparison_only(report) or not report.claims:
        return NOT_SHOWN
    return tuple(report.claims)


def markdown(claims: tuple[ClaimVerdict, ...], detail: Detail) -> list[str]:
    lines = ["## Claims", ""]
    lines += md_table(
        ["claim", "verdict", "observations"],
        [
            [
                md(c.claim),
                c.verdict,
                "<br>".join(f"*{o.verdict}*: {md(o.observation, 300)}" for o in c.observations) or "—",
            ]
            for c in claims
        ],
    )
    lines.append("")
    return lines


def html(claims: tuple[ClaimVerdict, ...]) -> list[Content]:
    return [
        tag("h2", "Claims", id="claims"),
        table(["claim", "statement", "verdict", "observations"], [_claim(c) for c in claims]),
    ]


def _claim(c: ClaimVerdict) -> list[Content]:
    observations = tag(
        "ul",
        [
            tag("li", tag("strong", o.verdict), ": ", o.observation, " ", tag("span", o.test, class_="muted"))
            for o in c.observations
        ],
    )
    return [tag("strong", c.claim), c.statement, tag("span", c.verdict, class_="v"), observations]


SECTION = section("claims", view, markdown=markdown, html=html, anchor=Anchor("claims", "Claims"))
