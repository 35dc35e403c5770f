"""The behaviour changes that explain every departure, each with the departures it explains."""

from __future__ import annotations

from conformance.report.escape import cut_headline, safe
from conformance.report.evidence_parts import evidence_html, evidence_line, evidence_md
from conformance.report.markdown_parts import md, replay_block
from conformance.report.markup import Content, Markup, join, tag
from conformance.report.model import Report, RootCause
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, section
from conformance.report.text import LEGEND, is_comparison_only, run_causes


def view(report: Report) -> tuple[RootCause, ...] | NotShown:
    causes = run_causes(report)
    if is_comparison_only(report) or not causes:
        return NOT_SHOWN
    return tuple(causes)


def markdown(causes: tuple[RootCause, ...], detail: Detail) -> list[str]:
    lines = [
        "## Root causes",
        "",
        f"{_lead(causes)}; the other departures follow from them (marked *explained by* below, each keeps "
        "its verdict).",
        "",
        f"*{md(LEGEND, None)}*",
        "",
    ]
    for cause in causes:
        lines += [f"### {md(', '.join(cause.records))}", "", md(cut_headline(cause.summary, 400), None), ""]
        if cause.explains:
            lines += [f"Explains {len(cause.explains)}: {md(', '.join(cause.explains), 1000)}", ""]
        if cause.evidence is not None:
            lines += evidence_md(cause.evidence, detail, frames=False)
        if cause.example and detail >= 1:
            test = f" ({md(cause.test, 200)})" if cause.test else ""
            lines += [f"Smallest example{test}, to replay on a fresh process:", "",
                      replay_block(cause.example, "root_causes → example"), ""]
    return lines


def _lead(causes: tuple[RootCause, ...]) -> str:
    """Said alike under a passing gate (departures the baseline accepts) and a failing one: no "failing"."""
    n = len(causes)
    return f"{n} behaviour change{'s' if n != 1 else ''} explain{'s' if n == 1 else ''} every departure"


def html(causes: tuple[RootCause, ...]) -> list[Content]:
    return [
        tag("h2", "Root causes", id="root-causes"),
        tag("p", f"{_lead(causes)}; the other departures follow from them (each keeps its verdict, "
            "marked explained by)."),
        tag("p", LEGEND, class_="muted"),
        [_root_cause(c) for c in causes],
    ]


def _root_cause(cause: RootCause) -> Markup:
    """One behaviour change: its records, what it explains, and the frames that show it."""
    body: list[Content] = [
        tag("h3", "Root cause: ", join((tag("a", r, href=f"#rec-{r}") for r in cause.records), ", "),
            id=f"cause-{cause.id}"),
        tag("p", cause.summary),
    ]
    if cause.explains:
        body.append(tag("p", f"Explains {len(cause.explains)}: ",
                        join((tag("a", r, href=f"#rec-{r}") for r in cause.explains), ", ")))
    if cause.evidence is not None:
        body += evidence_html(cause.evidence, frames=False)
    if cause.example:
        body += [
            tag("h4", "Smallest example, to replay on a fresh process (one frame per line on stdin)"),
            tag("p", tag("code", cause.test or "")),
            tag("pre", "\n".join(cause.example)),
        ]
    return tag("section", body)


def terminal(causes: tuple[RootCause, ...]) -> list[str]:
    lines = [f"  root causes ({len(causes)}):", f"  {LEGEND}"]
    for cause in causes:
        lines.append(f"  ▶ {cut_headline(safe(cause.summary), 160)}")
        if cause.evidence is not None:
            lines.append(f"      {safe(evidence_line(cause.evidence), 200)}")
        if cause.explains:
            lines.append(f"      explains {len(cause.explains)}: {safe(', '.join(cause.explains), 200)}")
    return lines


SECTION = section(
    "root causes", view, markdown=markdown, html=html, terminal=terminal,
    anchor=Anchor("root-causes", "Root causes"),
)
