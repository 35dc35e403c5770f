"""The gate against the baseline: departures not in it, stale or unconfirmed entries, changed behaviour.

report.md shows it whenever a baseline was given or the gate failed; report.html when it has an entry
to list or a baseline; the terminal only the departures whose behaviour changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.core.failure_text import one_line
from conformance.report.escape import safe
from conformance.report.html_parts import table, verdict
from conformance.report.markdown_parts import code_block, in_html, md
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, tag
from conformance.report.model import LIMIT_REFUSED_WORDS, Gate, GateEntry, Report
from conformance.report.sections.departures import headline
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, section
from conformance.report.text import (
    DEPARTING,
    around_difference,
    is_comparison_only,
    next_steps,
    paired_answers,
    seen_once_kinds,
)


@dataclass(frozen=True)
class GateView:
    gate: Gate
    steps: tuple[tuple[str, str], ...]
    """What acts on it, naming this report's folder as the command line named it (`--out`)."""
    folder: str


def view(report: Report) -> GateView | NotShown:
    """Not shown for a comparison, nor for a shard: its title already says the merged report judges it."""
    if is_comparison_only(report) or report.gate.deferred:
        return NOT_SHOWN
    folder = report.run.out or "REPORT_DIR"
    return GateView(_said(report), tuple(next_steps(report, folder)), folder)


def _said(report: Report) -> Gate:
    """The gate with each row that repeats its record's own check message (no baseline reason: a human's
    words are kept as written) given the record's line instead, as the terminal and the departures say it:
    a check's message may be a Python repr or a bare number ("69"), which no one can act on (issue 42)."""
    lines = {rv.id: (rv.reason, headline(rv, rv.evidence)) for rv in report.records
             if rv.verdict in DEPARTING and rv.reason}

    def rows(entries: list[GateEntry]) -> list[GateEntry]:
        return [e.model_copy(update={"reason": lines[e.record][1]})
                if e.record in lines and e.reason == lines[e.record][0] else e for e in entries]

    g = report.gate
    return g.model_copy(update={"unexpected": rows(g.unexpected), "advisory": rows(g.advisory),
                                "unconfirmed": rows(g.unconfirmed)})


def markdown(shown: GateView, detail: Detail) -> list[str]:
    g = shown.gate
    if g.baseline is None and g.passed:
        return []
    lines = [
        "## Gate",
        "",
        f"Baseline: `{safe(g.baseline)}`" if g.baseline else "No baseline given.",
        "",
    ]
    if g.changed:
        lines += [
            "**Departure changed** (listed in the baseline, but its witness answers differ from the "
            "pinned ones)",
            "",
        ]
        for e in g.changed:
            lines += [f"- **{md(e.record)}** ({md(one_line(e.reason), 200)})", ""]
            for step, full_before, full_after in paired_answers(e.before, e.after):
                before, after = around_difference(full_before, full_after, 600)
                lines += [
                    f"  - witness <code>{in_html(step, 80)}</code>",
                    f"    - before: <code>{in_html(before, 600)}</code>",
                    f"    - after: <code>{in_html(after, 600)}</code>",
                ]
            lines.append("")
    for title, entries in _tables(g):
        if entries:
            lines += [f"**{title}**", ""]
            lines += md_table(
                ["record", "observed", "baseline", "reason"],
                [[md(e.record), e.verdict, e.expected, md(one_line(e.reason), 200)] for e in entries],
            )
            lines.append("")
    return lines + _next_steps(shown)


def markdown_pointing(shown: GateView, detail: Detail) -> list[str]:
    """report.md's gate when its shortest form is over budget (`report/markdown.py`): each table one line of
    record IDs, the departures' lines left to the Departures section and every reason to report.html and
    report.json; the next steps kept."""
    g = shown.gate
    if g.baseline is None and g.passed:
        return []
    lines = ["## Gate", "", f"Baseline: `{safe(g.baseline)}`" if g.baseline else "No baseline given.", "",
             "Each table is one line of record IDs here, to keep report.md within its budget: each "
             "departure's line is under Departures, each row's reason in report.html and report.json.", ""]
    for title, entries in (("Departure changed", g.changed), *_tables(g)):
        if entries:
            lines += [f"- **{title}** ({len(entries)}): {md(', '.join(e.record for e in entries), None)}"]
    lines.append("")
    return lines + _next_steps(shown)


def _tables(g: Gate) -> tuple[tuple[str, list[GateEntry]], ...]:
    """The gate's tables, titled, in the order report.md shows them."""
    return (
        ("Not in the baseline", g.unexpected),
        ("Stale (now holds)", g.stale),
        ("Not confirmed", g.unconfirmed),
        ("Reason still TODO (--strict-baseline)", g.unexplained),
        ("Expected by the baseline", g.expected),
        ("Departures from guidance the specification states without a keyword (not gating)", g.advisory),
        *((f"{words[0].upper()}{words[1:]} (not gating)", rows)
          for words, rows in seen_once_kinds(g.seen_once)),
    )


def _next_steps(shown: GateView) -> list[str]:
    if not shown.steps:
        return []
    lines = ["**Next step**" + (" (`REPORT_DIR` is this report's folder)" if shown.folder == "REPORT_DIR"
                                 else " (from the folder the run was started in)"), ""]
    for when, command in shown.steps:
        lines += [f"- {md(when, 300)}" + (":" if command else ""), ""]
        lines += [code_block(command, "sh"), ""] if command else []
    return lines


def html(shown: GateView) -> list[Content]:
    g = shown.gate
    rows: list[list[Content]] = []
    for label, entries in (
        ("not in baseline", g.unexpected),
        ("stale", g.stale),
        ("not confirmed", g.unconfirmed),
        ("departure changed", g.changed),
        ("reason TODO", g.unexplained),
        ("expected", g.expected),
        ("guidance (not gating)", g.advisory),
        *((("limit refused (not gating)" if words == LIMIT_REFUSED_WORDS else "seen once (not gating)"), rows)
          for words, rows in seen_once_kinds(g.seen_once)),
    ):
        rows += [
            [label, tag("a", e.record, href=f"#rec-{e.record}"), verdict(e.verdict), e.expected, e.reason]
            for e in entries
        ]
    parts: list[Content] = []
    if rows or g.baseline or g.changed:
        parts += [
            tag("h2", "Gate", id="gate"),
            tag("p", "Baseline: ", tag("code", g.baseline or "none")),
            table(["", "record", "observed", "baseline", "reason"], rows),
        ]
    if g.changed:
        parts += [
            tag("h3", "Departure changed"),
            tag("p", "Listed in the baseline, but its witness answers differ from the pinned ones."),
        ]
        for e in g.changed:
            answers: list[list[Content]] = [
                [tag("code", step), tag("code", before), tag("code", after)]
                for step, before, after in paired_answers(e.before, e.after)
            ]
            parts += [
                tag("h4", tag("a", e.record, href=f"#rec-{e.record}"), " — ", e.reason),
                table(["witness", "before (baseline)", "after (this run)"], answers),
            ]
    if shown.steps:
        where = ("REPORT_DIR is this report's folder." if shown.folder == "REPORT_DIR"
                 else "From the folder the run was started in.")
        parts += [tag("h3", "Next step"), tag("p", where),
                  tag("ul", [tag("li", when, *([": ", tag("code", command)] if command else []))
                             for when, command in shown.steps])]
    return parts


def terminal(shown: GateView) -> list[str]:
    g = shown.gate
    lines: list[str] = []
    for entry in g.changed:
        lines += [""] if lines else []
        lines += _changed(entry)
    return lines


def _changed(entry: GateEntry) -> list[str]:
    lines = [f"  departure changed: {safe(entry.record)} ({safe(one_line(entry.reason), 100)})"]
    for step, before, after in paired_answers(entry.before, entry.after):
        shown_before, shown_after = around_difference(before, after, 160)
        lines += [
            f"    {safe(step)}",
            f"      before: {safe(shown_before, 160)}",
            f"      after:  {safe(shown_after, 160)}",
        ]
    return lines


SECTION = section(
    "gate", view, markdown=markdown, html=html, terminal=terminal, anchor=Anchor("gate", "Gate")
)
POINTING = section("gate", view, markdown=markdown_pointing)
"""The gate as report.md shows it when nothing longer fits (`report/markdown.py`)."""
