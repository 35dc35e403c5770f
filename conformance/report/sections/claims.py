"""The claims of the documents (CLM-*), each asked two questions side by side: does the server still make
the claim (the claim record's verdict), and is the claim true of its behaviour (the claim audit)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Final

from conformance.core.failure_text import check_name
from conformance.report.html_parts import table, verdict
from conformance.report.markdown_parts import md
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, tag
from conformance.report.model import ClaimVerdict, Report
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, section
from conformance.report.text import VERDICT_MARK, is_comparison_only, not_checked

TWO_QUESTIONS: Final = (
    "Each claim is asked two questions. The record's verdict asks whether the server still makes the claim "
    "(its tool description or README says it): holds means it does. The claim audit asks whether the claim "
    "is true of what the server does, from what the suite observed: contradicted, unsupported, bounded, "
    "observed-delivered or supported. A claim can hold as a record and be contradicted by the audit: the "
    "server says it, and it is not so."
)


@dataclass(frozen=True)
class Claims:
    claims: tuple[ClaimVerdict, ...]
    record_verdicts: dict[str, str]
    """The verdict of each claim's own record (same ID), where the catalog has one."""
    not_checked: str | None = None
    """After a preflight stop, how a record not run is said (`text.not_checked`)."""


def view(report: Report) -> Claims | NotShown:
    if is_comparison_only(report) or not report.claims:
        return NOT_SHOWN
    return Claims(tuple(report.claims), {rv.id: rv.verdict for rv in report.records}, not_checked(report))


def _record_verdict(claims: Claims, claim: str) -> str:
    v = claims.record_verdicts.get(claim)
    if v is None:
        return "—"
    return f"{VERDICT_MARK[v]} {claims.not_checked if v == 'not run' and claims.not_checked else v}"


def markdown(claims: Claims, detail: Detail) -> list[str]:
    lines = ["## Claims", "", TWO_QUESTIONS, ""]
    lines += md_table(
        ["claim", "still made? (record verdict)", "true of its behaviour? (claim audit)", "observations"],
        [
            [
                md(c.claim),
                _record_verdict(claims, c.claim),
                c.verdict,
                "<br>".join(f"*{o.verdict}*: {md(o.observation, 300)}" for o in c.observations) or "—",
            ]
            for c in claims.claims
        ],
    )
    lines.append("")
    return lines


def markdown_short(claims: Claims, detail: Detail) -> list[str]:
    """report.md's claims when its shortest form is over budget (`report/markdown.py`): each claim's two
    answers and its observations counted by verdict (their words are in report.html and report.json)."""
    lines = ["## Claims", "", TWO_QUESTIONS, "", "Observations counted, to keep report.md within its budget: "
             "their words are in report.html and report.json.", ""]
    lines += md_table(
        ["claim", "still made? (record verdict)", "true of its behaviour? (claim audit)", "observations"],
        [[md(c.claim), _record_verdict(claims, c.claim), c.verdict, _counted(c)] for c in claims.claims],
    )
    return [*lines, ""]


def _counted(c: ClaimVerdict) -> str:
    counts = Counter(o.verdict for o in c.observations)
    return ", ".join(f"{n} {md(v)}" for v, n in counts.items()) or "—"


def html(claims: Claims) -> list[Content]:
    return [
        tag("h2", "Claims", id="claims"),
        tag("p", TWO_QUESTIONS),
        table(
            ["claim", "statement", "still made? (record verdict)", "true of its behaviour? (claim audit)",
             "observations"],
            [_claim(claims, c) for c in claims.claims],
        ),
    ]


def _claim(claims: Claims, c: ClaimVerdict) -> list[Content]:
    observations = tag(
        "ul",
        [
            tag("li", tag("strong", o.verdict), ": ", o.observation, " ",
                tag("span", check_name(o.test), class_="muted"))
            for o in c.observations
        ],
    )
    record = claims.record_verdicts.get(c.claim)
    said = claims.not_checked if record == "not run" else None
    made: Content = "—" if record is None else tag("a", verdict(record, said), href=f"#rec-{c.claim}")
    return [tag("strong", c.claim, id=f"claim-{c.claim}"), c.statement, made,
            tag("span", c.verdict, class_="v"), observations]


SECTION = section("claims", view, markdown=markdown, html=html, anchor=Anchor("claims", "Claims"))
SHORT = section("claims", view, markdown=markdown_short)
"""The claims as report.md shows them when nothing longer fits (`report/markdown.py`)."""
