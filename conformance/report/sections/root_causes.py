"""The behaviour changes that explain every departure, each with the departures it explains."""

from __future__ import annotations

from conformance.report.escape import cut_headline, safe
from conformance.report.markdown_parts import code_block, md, replay_block
from conformance.report.markup import Content, Markup, join, tag
from conformance.report.model import Evidence, Report, RootCause
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, section
from conformance.report.text import around_difference, is_comparison_only, run_causes

BOTH = "fresh processes of this server and the original"
ANSWER_CHARS = 900
WHY_RECORD = "Why this record: the difference contradicts its statement's words"


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
    ]
    for cause in causes:
        lines += [f"### {md(', '.join(cause.records))}", "", md(cut_headline(cause.summary, 400), None), ""]
        if cause.explains:
            lines += [f"Explains {len(cause.explains)}: {md(', '.join(cause.explains), 1000)}", ""]
        if cause.evidence is not None:
            lines += _evidence_md(cause.evidence, detail)
        if cause.example and detail >= 1:
            test = f" ({md(cause.test, 200)})" if cause.test else ""
            lines += [f"Smallest example{test}, to replay on a fresh process:", "",
                      replay_block(cause.example, "root_causes → example"), ""]
    return lines


def _evidence_md(evidence: Evidence, detail: Detail) -> list[str]:
    """What differs, marked, and both answers: the example replayed on fresh processes of both sides."""
    if not evidence.reproduced:
        return [f"**Not reproduced** on {BOTH}: {md(evidence.why, 600)}", ""]
    lines = [f"**Reproduced** on {BOTH}, {md(evidence.at)}:", ""]
    lines += [f"- {md(d, 600)}" for d in evidence.differences[:12]]
    if evidence.breaks:
        lines += ["", f"{WHY_RECORD} “{md(evidence.breaks, 300)}”"]
    if evidence.why:
        lines += ["", f"Why this example: {md(evidence.why, 400)}"]
    if detail >= 1:
        theirs, ours = around_difference(evidence.original, evidence.target, ANSWER_CHARS)
        lines += ["", "The original answered (keys sorted, cut around the difference):", "",
                  code_block(theirs, "json"), "", "This server answered:", "", code_block(ours, "json")]
    return [*lines, ""]


def _evidence_html(evidence: Evidence) -> list[Content]:
    if not evidence.reproduced:
        return [tag("p", tag("strong", "Not reproduced"), f" on {BOTH}: ", evidence.why)]
    return [
        tag("p", tag("strong", "Reproduced"), f" on {BOTH}, {evidence.at}:"),
        tag("ul", [tag("li", d) for d in evidence.differences[:12]]),
        *([tag("p", f"{WHY_RECORD} “", evidence.breaks, "”")] if evidence.breaks else []),
        *([tag("p", "Why this example: ", evidence.why)] if evidence.why else []),
        tag("h4", "The original answered (keys sorted)"), tag("pre", evidence.original[:20000]),
        tag("h4", "This server answered"), tag("pre", evidence.target[:20000]),
    ]


def evidence_by_record(report: Report) -> dict[str, tuple[str, Evidence]]:
    """Each departure's cause and that cause's replayed evidence: its records' and those it explains."""
    out: dict[str, tuple[str, Evidence]] = {}
    for cause in report.root_causes:
        if cause.evidence is not None:
            for record in [*cause.records, *cause.explains]:
                out.setdefault(record, (cause.id, cause.evidence))
    return out


def evidence_text(evidence: Evidence) -> str:
    """The evidence as plain lines: where it differs, what differs, and both answers."""
    if not evidence.reproduced:
        return "not reproduced on fresh processes: " + evidence.why
    lines = [f"reproduced on {BOTH}, {evidence.at}:", *(f"  {d}" for d in evidence.differences)]
    if evidence.breaks:
        lines.append(f"{WHY_RECORD} “{evidence.breaks}”")
    lines += [f"the original answered: {evidence.original}", f"this server answered: {evidence.target}"]
    return "\n".join(lines)


def evidence_line(evidence: Evidence) -> str:
    """The terminal's line under a cause: the first difference, where, and whether it reproduced."""
    if not evidence.reproduced:
        return "not reproduced on fresh processes: " + evidence.why
    first = evidence.differences[0] if evidence.differences else "answers differ"
    return f"reproduced {evidence.at}: {first}"


def _lead(causes: tuple[RootCause, ...]) -> str:
    """Said alike under a passing gate (departures the baseline accepts) and a failing one: no "failing"."""
    n = len(causes)
    return f"{n} behaviour change{'s' if n != 1 else ''} explain{'s' if n == 1 else ''} every departure"


def html(causes: tuple[RootCause, ...]) -> list[Content]:
    return [
        tag("h2", "Root causes", id="root-causes"),
        tag("p", f"{_lead(causes)}; the other departures follow from them (each keeps its verdict, "
            "marked explained by)."),
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
        body += _evidence_html(cause.evidence)
    if cause.example:
        body += [
            tag("h4", "Smallest example, to replay on a fresh process (one frame per line on stdin)"),
            tag("p", tag("code", cause.test or "")),
            tag("pre", "\n".join(cause.example)),
        ]
    return tag("section", body)


def terminal(causes: tuple[RootCause, ...]) -> list[str]:
    lines = [f"  root causes ({len(causes)}):"]
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
