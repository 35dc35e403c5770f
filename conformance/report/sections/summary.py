"""What a maintainer checks first after the gate's sentence: the records checked, the departures (new, and
accepted by the baseline), the records per verdict; then, under its own heading, what the run adds to the
evidence packet (records moved from *implemented* to *observed*, examples)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from conformance.report.escape import safe
from conformance.report.html_parts import table, verdict
from conformance.report.markdown_parts import md
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, Markup, tag
from conformance.report.model import VERDICTS, Report, Summary
from conformance.report.sections.section import NOT_SHOWN, Detail, NotShown, section
from conformance.report.svg import COLOURS, legend, verdict_bar
from conformance.report.text import (
    DEPARTING,
    VERDICT_MARK,
    counted,
    departing_records,
    departures_sentence,
    is_comparison_only,
    not_checked,
    records_checked,
    stopped_before_checks,
)

EVIDENCE_HEADING = "For the evidence packet"
"""Where the documents' bookkeeping goes: below what the gate and a maintainer act on."""


@dataclass(frozen=True)
class Totals:
    summary: Summary
    checked: str
    departures: str | None
    """None after a preflight stop ended the run before its checks: no record was weighed, so none is said
    to depart or not (the sentence above says what stopped it and that nothing else was checked)."""
    profile: str
    seed: str | None
    duration_s: float
    looks: str
    """Where this run looks, beside where `compare` does: the two can see different things of one pair."""
    unchecked: str | None = None
    """After a preflight stop ended the run before its checks, how its "not run" records are said: not
    checked, and at which stop (issues 42, 46)."""
    probed: tuple[str, ...] = ()
    """Departing records reached by the deterministic probes (their failing checks each failed on one)."""

    def label(self, v: str) -> str:
        """A verdict as the table says it: after a preflight stop, "not run" says nothing was checked, as
        the sentence above the table does."""
        return self.unchecked if self.unchecked is not None and v == "not run" else v


def view(report: Report) -> Totals | NotShown:
    if is_comparison_only(report):
        return NOT_SHOWN
    return Totals(
        report.summary,
        records_checked(report),
        None if stopped_before_checks(report)
        else departures_sentence(report.gate, departing_records(report)),
        report.harness.profile,
        report.harness.seed,
        report.run.duration_s,
        where_the_gate_looks(report.protocol_version),
        not_checked(report),
        tuple(rv.id for rv in report.records if rv.verdict in DEPARTING and rv.probes),
    )


def where_the_gate_looks(revision: str | None) -> str:
    """One sentence: the client the records were judged through, and what `compare` meets besides."""
    if not revision:
        return ""
    return (f"the gate judges the records as a {revision} client; compare also meets the other protocol "
            "revisions' clients and can report what this run does not weigh (docs/eras.md)")


def probed_sentence(records: tuple[str, ...]) -> str:
    """Which departures the fixed calls sent before the search reached (issue 43: without them, a seed's
    search may not)."""
    return (f"Reached by the deterministic probes (fixed calls sent before the search under every seed, "
            f"calls/probes.py): {', '.join(records)}")


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _evidence(s: Summary) -> str:
    return (
        f"{s.records} records in the catalog; {s.observed} observed in this run, {s.moved_to_observed} of "
        f"them moved from implemented to observed; {counted(s.examples, 'generated example')}"
    )


def markdown(totals: Totals, detail: Detail) -> list[str]:
    s = totals.summary
    counts = [[f"{VERDICT_MARK[v]} {totals.label(v)}", str(s.counts.get(v, 0))] for v in VERDICTS]
    evidence = (
        f"*{EVIDENCE_HEADING}:* {md(_evidence(s))}; profile `{safe(totals.profile)}`, seed "
        f"`{safe(totals.seed or 'random')}`."
    )
    looks = [f"{md(_sentence(totals.looks))}.", ""] if totals.looks else []
    probed = [f"{md(probed_sentence(totals.probed))}.", ""] if totals.probed else []
    return [
        f"**{md(totals.checked, None)}.**"
        + (f" {md(_sentence(totals.departures))}." if totals.departures else ""),
        "",
        *probed,
        *md_table(["verdict", "records"], counts),
        "",
        *looks,
        evidence,
        "",
    ]


def html(totals: Totals) -> list[Content]:
    s = totals.summary
    return [
        tag("p", tag("strong", totals.checked), ".",
            *((" ", _sentence(totals.departures), ".") if totals.departures else ()), class_="lead"),
        table(["verdict", "records"], [
            [verdict(v) if totals.label(v) == v else f"{VERDICT_MARK[v]} {totals.label(v)}",
             s.counts.get(v, 0)] for v in VERDICTS]),
        _verdict_figure(s.counts, totals.label),
        *([tag("p", _sentence(totals.looks), ".")] if totals.looks else []),
        tag("h3", EVIDENCE_HEADING),
        tag("p", _evidence(s), "; profile ", tag("code", totals.profile), ", seed ",
            tag("code", totals.seed or "random"), ".", class_="muted"),
    ]


def _verdict_figure(counts: dict[str, int], label: Callable[[str], str] = str) -> Markup:
    """The verdict distribution as a bar, with its counts as a legend (the table above says the same)."""
    title = "Records per verdict: " + ", ".join(f"{label(v)} {counts.get(v, 0)}" for v in VERDICTS)
    return tag(
        "figure",
        verdict_bar(counts, VERDICTS, title=title),
        legend([(COLOURS[v], f"{label(v)} ({counts.get(v, 0)})") for v in VERDICTS]),
    )


def terminal(totals: Totals) -> list[str]:
    s = totals.summary
    return [
        f"  {totals.checked}",
        *([f"  {totals.departures}"] if totals.departures else []),
        f"  {EVIDENCE_HEADING.lower()}: {s.moved_to_observed} of {s.records} records moved from implemented "
        f"to observed, {counted(s.examples, 'example')}, {totals.duration_s:.1f} s",
        *([f"  {totals.looks}"] if totals.looks else []),
    ]


SECTION = section("summary", view, markdown=markdown, html=html, terminal=terminal)
