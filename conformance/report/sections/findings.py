"""Records contradicted by observation on the original, as amendments in the documents' own form."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.report.html_parts import identifier, table
from conformance.report.markdown_parts import md
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, tag
from conformance.report.model import Finding, Report, UnregisteredDeviation
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, section
from conformance.report.text import is_comparison_only


@dataclass(frozen=True)
class Findings:
    findings: tuple[Finding, ...]
    unregistered: tuple[UnregisteredDeviation, ...]


def view(report: Report) -> Findings | NotShown:
    if is_comparison_only(report) or not (report.findings or report.unregistered_deviations):
        return NOT_SHOWN
    return Findings(tuple(report.findings), tuple(report.unregistered_deviations))


def markdown(found: Findings, detail: Detail) -> list[str]:
    lines = ["## Findings", "", "Amendments in the documents' form; the evidence anchor is this run's.", ""]
    if not found.findings:
        lines += ["No finding registered in fixtures/findings.yaml for this target."]
    else:
        lines += md_table(
            ["amendment", "annotates", "finding", "evidence anchor", "superseded value", "reproduced"],
            [
                [
                    md(f.amendment),
                    md(f.annotates),
                    md(f.finding, 800),
                    md("; ".join(f.evidence_anchor), 400),
                    md(f.superseded, 300),
                    "yes" if f.reproduced else f"no ({f.verdict})",
                ]
                for f in found.findings
            ],
        )
    if found.unregistered:
        lines += [
            "",
            "Deviating on the original with no finding registered (a wrong test or a wrong record):",
            "",
        ]
        lines += [f"- {md(u.record)}: {md(u.message, 300)}" for u in found.unregistered]
    lines.append("")
    return lines


def html(found: Findings) -> list[Content]:
    parts: list[Content] = [
        tag("h2", "Findings", id="findings"),
        tag(
            "p",
            "Records contradicted by observation on the original, as amendments in the "
            "documents' own form; the evidence anchor is this run's.",
        ),
        tag("p", "No finding registered in fixtures/findings.yaml for this target.")
        if not found.findings
        else table(
            [
                "amendment",
                "annotates",
                "finding",
                "evidence anchor",
                "superseded value",
                "reproduced in this run",
            ],
            [
                [
                    tag("strong", f.amendment),
                    tag("a", f.annotates, href=f"#rec-{f.annotates}"),
                    f.finding,
                    tag("ul", [tag("li", identifier(a)) for a in f.evidence_anchor]),
                    f.superseded,
                    "yes" if f.reproduced else f"no ({f.verdict})",
                ]
                for f in found.findings
            ],
        ),
    ]
    if found.unregistered:
        parts += [
            tag("p", "Deviating on the original with no finding registered:"),
            tag(
                "ul",
                [
                    tag("li", tag("a", u.record, href=f"#rec-{u.record}"), ": ", u.message)
                    for u in found.unregistered
                ],
            ),
        ]
    return parts


SECTION = section("findings", view, markdown=markdown, html=html, anchor=Anchor("findings", "Findings"))
