"""The root causes the run found, each with the departures filed under it (a cause is a record, not a
behaviour change: the grouping cannot count changes)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from conformance.core.failure_text import check_name
from conformance.report.escape import cut_headline, safe
from conformance.report.evidence_parts import evidence_html, evidence_line, evidence_md, record_evidence
from conformance.report.markdown_parts import md, replay_block
from conformance.report.markup import Content, Markup, join, tag
from conformance.report.model import Report, RootCause
from conformance.report.sections.departures import headline, said_once
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, section
from conformance.report.text import LEGEND, is_comparison_only, run_causes


@dataclass(frozen=True)
class Causes:
    causes: tuple[RootCause, ...]
    unexplained: tuple[tuple[str, str], ...] = ()
    """Departures no cause names or explains: (record, its own line)."""
    said: tuple[tuple[tuple[str, ...], str], ...] = ()
    """The same, a line said alike for several said once: (records, their line) (`said_once`)."""

    def __iter__(self) -> Iterator[RootCause]:
        return iter(self.causes)

    def __len__(self) -> int:
        return len(self.causes)


def view(report: Report) -> Causes | NotShown:
    causes = run_causes(report)
    if is_comparison_only(report) or not causes:
        return NOT_SHOWN
    named = {r for c in causes for r in (*c.records, *c.explains)}
    replayed = record_evidence(report)
    alone = [(rv, headline(rv, replayed.get(rv.id))) for rv in report.records
             if rv.verdict in ("deviates", "error") and rv.kind != "spec" and rv.id not in named]
    return Causes(tuple(causes), tuple((rv.id, line) for rv, line in alone),
                  tuple((tuple(rv.id for rv in members), line) for members, line in said_once(alone)))


def markdown(causes: Causes, detail: Detail) -> list[str]:
    lines = ["## Root causes", "", f"{_lead(causes)}.", "", f"*{md(LEGEND, None)}*", ""]
    if causes.unexplained:
        lines += [f"- {md(', '.join(ids), None)} — {md(line, 300)}" for ids, line in causes.said] + [""]
    for cause in causes:
        lines += [f"### {md(', '.join(cause.records))}", "", md(cut_headline(cause.summary, 400), None), ""]
        if cause.explains:
            lines += [f"Explains {len(cause.explains)}: {md(', '.join(cause.explains), 1000)}", ""]
        if cause.evidence is not None:
            lines += evidence_md(cause.evidence, detail, frames=False)
        if cause.example and detail >= 1:
            test = f" ({md(check_name(cause.test), 200)})" if cause.test else ""
            lines += [f"Smallest example{test}, to replay on a fresh process:", "",
                      replay_block(cause.example, "root_causes → example"), ""]
    return lines


def markdown_folded(causes: Causes, detail: Detail) -> list[str]:
    """report.md's root causes when its shortest form is over budget (`report/markdown.py`): the departures
    no cause explains one line of IDs (each one's line is under Departures), each cause its records, its
    headline and the IDs it explains."""
    lines = ["## Root causes", "", f"{_lead(causes, folded=True)}.", ""]
    if causes.unexplained:
        ids = ", ".join(record for record, _ in causes.unexplained)
        lines += [f"Not explained by a cause ({len(causes.unexplained)}; each one's line is under "
                  f"Departures, or past report.md's budget in report.html): {md(ids, None)}", ""]
    for cause in causes:
        explained = md(", ".join(cause.explains), None)
        explains = f" · explains {len(cause.explains)}: {explained}" if cause.explains else ""
        headline = md(cut_headline(cause.summary, 200), None)
        lines.append(f"- **{md(', '.join(cause.records), None)}** — {headline}{explains}")
    return [*lines, ""]


def _lead(causes: Causes, *, folded: bool = False) -> str:
    """Said alike under a passing gate (departures the baseline accepts) and a failing one: no "failing".
    It counts causes, never behaviour changes: one change may lead two causes (a schema property under
    CMP-2 and OBJ-13) and two changes may share one, so only what the grouping knows is said."""
    n = len(causes)
    said = f"{n} root cause{'s' if n != 1 else ''}"
    if not causes.unexplained:
        under = "it" if n == 1 else "one of them"
        below = "" if folded else " below"
        return (f"{said}; every other departure is explained by {under} (marked *explained by*{below}, each "
                "keeps its verdict)")
    m = len(causes.unexplained)
    where = "listed by ID" if folded else "each with its own line below"
    return (f"{said}; {m} departure{'s are' if m != 1 else ' is'} not explained by a cause, {where} (the "
            "departures a cause explains are marked *explained by*)")


def html(causes: Causes) -> list[Content]:
    items = [tag("li", tag("a", r, href=f"#rec-{r}"), " — ", line) for r, line in causes.unexplained]
    alone = [tag("ul", items)] if items else []
    return [
        tag("h2", "Root causes", id="root-causes"),
        tag("p", f"{_lead(causes).replace('*', '')}."),
        tag("p", LEGEND, class_="muted"),
        *alone,
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
            tag("p", check_name(cause.test) if cause.test else ""),
            tag("pre", "\n".join(cause.example)),
        ]
    return tag("section", body)


def terminal(causes: Causes) -> list[str]:
    lines = [f"  root causes ({len(causes)}):", f"  {LEGEND}"]
    if causes.unexplained:
        ids = ", ".join(r for r, _ in causes.unexplained)
        lines.append(f"  {len(causes.unexplained)} departure(s) not explained by a cause: {safe(ids, 300)}")
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
FOLDED = section("root causes", view, markdown=markdown_folded)
"""The root causes as report.md shows them when nothing longer fits (`report/markdown.py`)."""
