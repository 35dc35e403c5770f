"""Each record that deviates or errs, with its smallest counterexample (report.md and the terminal;
report.html opens these among its records). The terminal names only the departures the gate did not accept;
those the baseline accepts it counts (their reasons are in report.md)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from conformance.core.failure_text import check_name, one_line, spoken
from conformance.report.escape import safe
from conformance.report.evidence_parts import evidence_md, record_evidence, unreplayed
from conformance.report.markdown_parts import code_block, in_html, md, replay_block
from conformance.report.model import Evidence, RecordVerdict, Report, masked_said
from conformance.report.sections.section import NOT_SHOWN, Detail, NotShown, section
from conformance.report.text import VERDICT_MARK, counted, is_comparison_only

EXCHANGE_EVENTS: Final = 12
EVENT_CHARS: Final = 300


@dataclass(frozen=True)
class Departures:
    records: tuple[RecordVerdict, ...]
    accepted: frozenset[str]
    """The departures the gate accepts: in the baseline, with its verdict (and the behaviour it pinned)."""
    replayed: Mapping[str, Evidence] = field(default_factory=dict)
    """Record → its pair: its example (or its root cause's) replayed on fresh processes of both sides."""


def view(report: Report) -> Departures | NotShown:
    departures = tuple(rv for rv in report.records if rv.verdict in ("deviates", "error"))
    if is_comparison_only(report) or not departures:
        return NOT_SHOWN
    unexplained = {e.record for e in report.gate.unexplained}
    accepted = frozenset(e.record for e in report.gate.expected if e.record not in unexplained)
    return Departures(departures, accepted, record_evidence(report))


def markdown(departures: Departures, detail: Detail) -> list[str]:
    lines = ["## Departures", ""]
    if detail < 2:
        lines += ["Details shortened to fit a comment: the full evidence is in report.html.", ""]
    left = unreplayed(departures.records)
    if left:
        why = next(rv.evidence.not_replayed for rv in departures.records
                   if rv.evidence is not None and rv.evidence.not_replayed)
        lines += [f"{len(left)} departure(s) without a replay of their own, each showing its root cause's "
                  f"when it has one ({md(', '.join(left), 400)}): {md(why, 300)}.", ""]
    folded = [rv for rv in departures.records if rv.explained_by] if detail == 0 else []
    # Departures whose lines say the same under one cause are shown once, the first one's evidence standing
    # for all (`said_once`); each one's own is in report.html. A departure under no cause keeps its own.
    shown = [rv for rv in departures.records if all(rv is not f for f in folded)]
    replayed = departures.replayed
    groups = said_once([(rv, headline(rv, replayed.get(rv.id))) for rv in shown if rv.explained_by])
    lead = {members[0].id: (members, line) for members, line in groups}
    later = {rv.id for members, _ in groups for rv in members[1:]}
    for rv in shown:
        if rv.id not in later:
            members, line = lead.get(rv.id, ([rv], ""))
            lines += _departure(rv, detail, departures.replayed.get(rv.id), also=members[1:], line=line)
    if folded:
        lines += ["Departures a root cause explains, one line each (a line said alike under one cause, "
                  "once; their evidence is in report.html):", ""]
        said = [(rv, headline(rv, departures.replayed.get(rv.id))) for rv in folded]
        for members, line in said_once(said):
            marks = "".join(dict.fromkeys(VERDICT_MARK[rv.verdict] for rv in members))
            ids = md(", ".join(rv.id for rv in members), None)
            cause = md(members[0].explained_by or "")
            lines.append(f"- {marks} {ids} (explained by {cause}) — {md(line, 240)}")
        lines.append("")
    return lines


_QUOTED: Final = re.compile(r"""['"“{\[(]""")
_NUMBER: Final = re.compile(r"\d+")


def said_once(lines: Sequence[tuple[RecordVerdict, str]]) -> list[tuple[list[RecordVerdict], str]]:
    """Departures whose lines say the same under the same cause (their own words up to the first thing they
    quote, numbers aside: "tools/call text is not JSON: …" for every check a fenced answer stopped), as one
    line naming them all, in the order they first appear, with the first one's line (issue 42: a fork's
    fenced answers repeated one line per record)."""
    grouped: dict[tuple[str, str], tuple[list[RecordVerdict], str]] = {}
    for rv, line in lines:
        own = _QUOTED.split(line, maxsplit=1)[0]
        key = (rv.explained_by or "", _NUMBER.sub("N", own).strip() if len(own) >= 12 else line)
        grouped.setdefault(key, ([], line))[0].append(rv)
    lines_of = {rv.id: line for rv, line in lines}
    out: list[tuple[list[RecordVerdict], str]] = []
    for members, line in grouped.values():
        if len({lines_of[rv.id] for rv in members}) > 1:
            # Said for several, the first one's note on its replay is not the others': it is left out.
            for note in (_ELSEWHERE_FIRST, _NOT_REPLAYED, _NOT_REPRODUCED):
                line = line.removesuffix(note)
        out.append((members, line))
    return out


def lines_only(departures: Departures, detail: Detail) -> list[str]:
    """report.md's last resort, when even its shortest form is over budget (a fork that departs from dozens
    of records, few of them under a cause): every departure in one line, its evidence left to report.html."""
    lines = ["## Departures", "",
             f"{len(departures.records)} departures, one line each, to keep report.md within its budget "
             "(each one's evidence, sequence and counterexample are in report.html):", ""]
    for rv in departures.records:
        because = f" (explained by {md(rv.explained_by)})" if rv.explained_by else ""
        lines.append(f"- {VERDICT_MARK[rv.verdict]} {md(rv.id)}{because} — "
                     f"{md(headline(rv, departures.replayed.get(rv.id)), 240)}")
    return [*lines, ""]


def ids_only(departures: Departures, detail: Detail) -> list[str]:
    """report.md's very last resort, when even one line per departure is over budget: every departure's ID,
    under the cause that explains it, its line and evidence left to report.html and report.json."""
    under: dict[str, list[RecordVerdict]] = {}
    for rv in departures.records:
        under.setdefault(rv.explained_by or "", []).append(rv)
    lines = ["## Departures", "",
             f"{len(departures.records)} departures, by ID only, to keep report.md within its budget (each "
             "one's line, evidence and counterexample are in report.html and report.json):", ""]
    for cause, records in sorted(under.items(), key=lambda kv: kv[0] != ""):
        said = f"explained by {md(cause)}" if cause else "under no cause"
        lines.append(f"- {said} ({len(records)}): "
                     + ", ".join(f"{VERDICT_MARK[rv.verdict]} {md(rv.id)}" for rv in records))
    return [*lines, ""]


def _departure(rv: RecordVerdict, detail: Detail, replayed: Evidence | None = None,
               also: Sequence[RecordVerdict] = (), line: str = "") -> list[str]:
    """detail 2: the pair with its sequence, counterexample, replay and exchange; 1: the pair and the
    counterexample; 0: the verdict line and what differs. `also`: departures whose line says the same,
    named beside it (their own evidence is in report.html); `line`, the line said for them all."""
    explained = f" (explained by {in_html(rv.explained_by)})" if rv.explained_by else ""
    ids = ", ".join([rv.id, *(other.id for other in also)])
    marks = "".join(dict.fromkeys(VERDICT_MARK[r.verdict] for r in (rv, *also)))
    line = line or headline(rv, replayed)
    lines = [
        f"<details><summary>{marks} {in_html(ids)}{explained} — {in_html(line, 200)}</summary>",
        "",
    ]
    if also:
        lines += [f"The same line for {len(also) + 1} departures; below, {in_html(rv.id)}'s evidence, then "
                  "each one's failing checks (each one's own evidence is in report.html).", ""]
    lines.append(f"{md(rv.statement)}")
    lines.append("")
    if "\n" in rv.reason and detail >= 1:
        lines += ["What the check saw:", "", code_block(rv.reason), ""]
    if replayed is not None:
        lines += evidence_md(replayed, detail)
    for test in rv.tests:
        if detail == 0 and test.status == "passed":
            continue
        lines.append(
            f"- {md(check_name(test.nodeid), 200)}: {test.status}, "
            f"{counted(test.examples, 'example')}"
            + (f" — {md(one_line(test.message), 300 if detail else 160)}"
               if test.message and test.status != "passed" else "")
        )
    for other in also:  # the others' own failing checks, in their own words, one line each
        lines += [f"- {md(other.id)}, {md(check_name(test.nodeid), 200)}: {test.status}"
                  + (f" — {md(one_line(test.message), 160)}" if test.message else "")
                  for test in other.tests if test.status in ("failed", "error")]
    ce = rv.counterexample
    if ce is not None and detail >= 1:
        cut = "" if ce.minimized else ", not fully minimized: shrinking reached its time budget"
        lines += ["", f"Smallest counterexample ({md(check_name(ce.test), 200)}{cut}):", "",
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
        said = safe(headline(rv, departures.replayed.get(rv.id)), 200)
        lines.append(f"  {rv.verdict:<8} {safe(rv.id):<{width}}  {said}{because}")
    accepted = len(departures.records) - len(shown)
    if accepted:
        lines.append(f"  accepted {accepted} departure{'s' if accepted > 1 else ''} the baseline lists "
                     "(each with its reason in report.md)")
    return lines


def headline(rv: RecordVerdict, evidence: Evidence | None) -> str:
    """A departure in one line, in the server's terms when its pair reproduced; else the check's reason
    (the terminal's line and report.md's summary); first, how another change's refusal masked it."""
    masked = masked_said(evidence)
    pair = evidence.headline() if evidence is not None and not evidence.not_its_failure else ""
    if pair:
        return f"{masked}: {pair}" if masked else pair
    failing = next((t.nodeid for t in rv.tests if t.status in ("failed", "error")), rv.id)
    said = spoken(rv.reason, failing, 160) + replay_note(evidence)
    return f"{masked}: {said}" if masked else said


def replay_note(evidence: Evidence | None) -> str:
    """How the line's departure stands to a replay, truly: none was due (its check reads files), none was
    made (the budget), one was made and differed elsewhere first, or one was made and showed no
    difference."""
    if evidence is None or evidence.own_failure:
        return ""
    if evidence.not_its_failure:
        return _ELSEWHERE_FIRST
    if evidence.not_replayed:
        return _NOT_REPLAYED
    return _NOT_REPRODUCED


_ELSEWHERE_FIRST: Final = " (its replay differs elsewhere first)"
_NOT_REPLAYED: Final = " (not replayed: the report's replay budget was spent)"
_NOT_REPRODUCED: Final = " (not reproduced on fresh processes)"


SECTION = section("departures", view, markdown=markdown, terminal=terminal)
LINES_ONLY = section("departures", view, markdown=lines_only)
"""The departures as report.md shows them when nothing shorter fits (`report/markdown.py`)."""
IDS_ONLY = section("departures", view, markdown=ids_only)
"""The departures as report.md shows them when not even one line each fits (`report/markdown.py`)."""
