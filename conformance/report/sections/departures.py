"""Each record that deviates or errs, with its smallest counterexample (report.md and the terminal;
report.html opens these among its records). The terminal names only the departures the gate did not accept;
those the baseline accepts it counts (their reasons are in report.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from conformance.core.failure_text import one_line
from conformance.report.escape import safe
from conformance.report.markdown_parts import code_block, in_html, md, replay_block
from conformance.report.model import Evidence, RecordVerdict, Report
from conformance.report.sections.root_causes import evidence_by_record, evidence_line
from conformance.report.sections.section import NOT_SHOWN, Detail, NotShown, section
from conformance.report.text import VERDICT_MARK, is_comparison_only

EXCHANGE_EVENTS: Final = 12
EVENT_CHARS: Final = 300


@dataclass(frozen=True)
class Departures:
    records: tuple[RecordVerdict, ...]
    accepted: frozenset[str]
    """The departures the gate accepts: in the baseline, with its verdict (and the behaviour it pinned)."""
    replayed: Mapping[str, tuple[str, Evidence]] = field(default_factory=dict)
    """Record → its root cause and that cause's example replayed on fresh processes (shown whole there)."""


def view(report: Report) -> Departures | NotShown:
    departures = tuple(rv for rv in report.records if rv.verdict in ("deviates", "error"))
    if is_comparison_only(report) or not departures:
        return NOT_SHOWN
    unexplained = {e.record for e in report.gate.unexplained}
    accepted = frozenset(e.record for e in report.gate.expected if e.record not in unexplained)
    return Departures(departures, accepted, evidence_by_record(report))


def markdown(departures: Departures, detail: Detail) -> list[str]:
    lines = ["## Departures", ""]
    if detail < 2:
        lines += ["Details shortened to fit a comment: the full evidence is in report.html.", ""]
    for rv in departures.records:
        lines += _departure(rv, detail, departures.replayed.get(rv.id))
    return lines


def _departure(rv: RecordVerdict, detail: Detail, replayed: tuple[str, Evidence] | None = None) -> list[str]:
    """detail 2: counterexample, replay and exchange; 1: counterexample only; 0: the verdict line."""
    explained = f" (explained by {in_html(rv.explained_by)})" if rv.explained_by else ""
    lines = [
        f"<details><summary>{VERDICT_MARK[rv.verdict]} {in_html(rv.id)}{explained} — "
        f"{in_html(one_line(rv.reason), 160)}</summary>",
        "",
    ]
    lines.append(f"{md(rv.statement)}")
    lines.append("")
    if "\n" in rv.reason and detail >= 1:
        lines += ["What the check saw:", "", code_block(rv.reason), ""]
    if replayed is not None:
        cause, evidence = replayed
        lines += [f"Replayed on fresh processes (root cause {md(cause)}, whole under Root causes): "
                  f"{md(evidence_line(evidence), 600)}", ""]
    for test in rv.tests:
        lines.append(
            f"- `{safe(test.nodeid).replace('`', chr(39))}`: {test.status}, {test.examples} examples"
            + (f" — {md(one_line(test.message), 300)}" if test.message and test.status != "passed" else "")
        )
    ce = rv.counterexample
    if ce is not None and detail >= 1:
        cut = "" if ce.minimized else ", not fully minimized: shrinking reached its time budget"
        lines += ["", f"Smallest counterexample ({md(ce.test, 200)}{cut}):", "",
                  code_block(ce.falsifying[:3000])]
        if ce.replay and detail >= 2:
            replay = replay_block(ce.replay, "records → counterexample → replay")
            lines += ["", "Replay on a fresh process (one JSON-RPC frame per line on stdin):", "", replay]
        if ce.exchange and detail >= 2:
            shown = ce.exchange[-EXCHANGE_EVENTS:]
            text = "\n".join(f"{e.kind:>8}  {e.data.rstrip()[:EVENT_CHARS]}" for e in shown)
            lines += ["", "What crossed the shared process's pipe while the failing example ran "
                      f"(last {len(shown)} of {len(ce.exchange)} events):", "", code_block(text)]
    if rv.transcripts:
        lines += ["", "Transcripts: " + ", ".join(f"`{safe(t)}`" for t in rv.transcripts)]
    lines += ["", "</details>", ""]
    return lines


def terminal(departures: Departures) -> list[str]:
    shown = [rv for rv in departures.records if rv.id not in departures.accepted]
    width = max((len(rv.id) for rv in shown), default=0)
    lines = []
    for rv in shown:
        because = f"  (explained by {safe(rv.explained_by)})" if rv.explained_by else ""
        lines.append(f"  {rv.verdict:<8} {safe(rv.id):<{width}}  {safe(one_line(rv.reason), 100)}{because}")
    accepted = len(departures.records) - len(shown)
    if accepted:
        lines.append(f"  accepted {accepted} departure{'s' if accepted > 1 else ''} the baseline lists "
                     "(each with its reason in report.md)")
    return lines


SECTION = section("departures", view, markdown=markdown, terminal=terminal)
