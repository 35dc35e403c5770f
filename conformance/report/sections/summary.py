"""Records per verdict and the run's totals: what a reader checks first after the gate's sentence."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.report.escape import safe
from conformance.report.html_parts import table, verdict
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, Markup, tag
from conformance.report.model import VERDICTS, Report, Summary
from conformance.report.sections.section import NOT_SHOWN, Detail, NotShown, section
from conformance.report.svg import COLOURS, legend, verdict_bar
from conformance.report.text import VERDICT_MARK, is_comparison_only


@dataclass(frozen=True)
class Totals:
    summary: Summary
    profile: str
    seed: str | None
    duration_s: float


def view(report: Report) -> Totals | NotShown:
    if is_comparison_only(report):
        return NOT_SHOWN
    return Totals(report.summary, report.harness.profile, report.harness.seed, report.run.duration_s)


def markdown(totals: Totals, detail: Detail) -> list[str]:
    s = totals.summary
    counts = [[f"{VERDICT_MARK[v]} {v}", str(s.counts.get(v, 0))] for v in VERDICTS]
    totals_line = (
        f"{s.records} records; {s.observed} observed in this run, {s.moved_to_observed} of them moved "
        f"from *implemented* to *observed*; {s.examples} generated examples; profile "
        f"`{safe(totals.profile)}`, seed `{safe(totals.seed or 'random')}`."
    )
    return [*md_table(["verdict", "records"], counts), "", totals_line, ""]


def html(totals: Totals) -> list[Content]:
    s = totals.summary
    return [
        table(["verdict", "records"], [[verdict(v), s.counts.get(v, 0)] for v in VERDICTS]),
        _verdict_figure(s.counts),
        tag(
            "p",
            f"{s.records} records; {s.observed} observed in this run, {s.moved_to_observed} moved from "
            f"implemented to observed; {s.examples} generated examples.",
        ),
    ]


def _verdict_figure(counts: dict[str, int]) -> Markup:
    """The verdict distribution as a bar, with its counts as a legend (the table above says the same)."""
    title = "Records per verdict: " + ", ".join(f"{v} {counts.get(v, 0)}" for v in VERDICTS)
    return tag(
        "figure",
        verdict_bar(counts, VERDICTS, title=title),
        legend([(COLOURS[v], f"{v} ({counts.get(v, 0)})") for v in VERDICTS]),
    )


def terminal(totals: Totals) -> list[str]:
    s = totals.summary
    totals_line = (
        f"  {s.records} records, {s.moved_to_observed} moved from implemented to observed, "
        f"{s.examples} examples, {totals.duration_s:.1f} s"
    )
    return [*(f"  {VERDICT_MARK[v]} {v:<15} {s.counts.get(v, 0):>4}" for v in VERDICTS), totals_line]


SECTION = section("summary", view, markdown=markdown, html=html, terminal=terminal)
