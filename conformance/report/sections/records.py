"""Every record of the catalog with its verdict: a table in report.md, the full evidence in report.html."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from conformance.core.failure_text import check_name, one_line
from conformance.report.evidence_parts import evidence_html, record_evidence
from conformance.report.html_parts import table, verdict
from conformance.report.markdown_parts import md
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, Markup, tag
from conformance.report.model import Evidence, RecordVerdict, Report
from conformance.report.sections.departures import headline
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, section
from conformance.report.text import DEPARTING, VERDICT_MARK, counted, is_comparison_only, not_checked

EVENT_CHARS: Final = 4000


@dataclass(frozen=True)
class Records:
    records: tuple[RecordVerdict, ...]
    audits: dict[str, str]
    """A claim record's claim audit (Claims), by record ID: the second question asked of it."""
    transcript: str | None
    """The transcript most tests name, said once above the records; a test naming another keeps a column."""
    others: bool
    """Whether some test names another transcript (or none)."""
    evidence: Mapping[str, Evidence] = field(default_factory=dict)
    """A departure's pair: its smallest example replayed on fresh processes of this server and the
    original."""
    not_checked: str | None = None
    """After a preflight stop, how a record not run is said (`text.not_checked`): its reason, the stop's, is
    said once above the tables, not in each row."""

    def verdict(self, rv: RecordVerdict) -> str:
        return self.not_checked if self.not_checked is not None and rv.verdict == "not run" else rv.verdict

    def reason(self, rv: RecordVerdict) -> str:
        return "" if self.not_checked is not None and rv.verdict == "not run" else _reason(rv)


def view(report: Report) -> Records | NotShown:
    if is_comparison_only(report):
        return NOT_SHOWN
    names = Counter(t.transcript for rv in report.records for t in rv.tests)
    common = names.most_common(1)[0][0] if names else None
    return Records(tuple(report.records), {c.claim: c.verdict for c in report.claims}, common, len(names) > 1,
                   record_evidence(report), not_checked(report))


def markdown(shown: Records, detail: Detail) -> list[str]:
    rows = [rv for rv in shown.records if detail or rv.verdict not in ("holds", "not observable")]
    left = len(shown.records) - len(rows)
    title = "All records" if not left else (
        f"The records that do not hold ({left} that hold or cannot be observed are listed in report.html)")
    lines = [f"<details><summary>{title}</summary>", ""]
    lines += md_table(
        ["record", "verdict", "tests", "examples", "evidence", "reason"],
        [
            [
                _record_id(rv),
                f"{VERDICT_MARK[rv.verdict]} {shown.verdict(rv)}"
                + (f" (explained by {md(rv.explained_by)})" if rv.explained_by else "")
                + (f"; claim audit: *{md(shown.audits[rv.id])}*" if rv.id in shown.audits else ""),
                str(len(rv.tests)),
                str(rv.examples),
                f"{md(rv.evidence_before)} → {md(rv.evidence_after)}",
                md(one_line(shown.reason(rv)), 200 if detail else 80),
            ]
            for rv in rows
        ],
    )
    return [*lines, "", "</details>", ""]


def markdown_pointing(shown: Records, detail: Detail) -> list[str]:
    """report.md's records when its shortest form is over budget (`report/markdown.py`): the records that
    neither hold nor depart, one line of IDs per verdict; the departures are under Departures, every
    record's row in report.html and report.json."""
    by_verdict: dict[str, list[str]] = {}
    for rv in shown.records:
        if rv.verdict not in ("holds", *DEPARTING):
            by_verdict.setdefault(rv.verdict, []).append(rv.id)
    lines = ["<details><summary>The records that neither hold nor depart (every record's row is in "
             "report.html and report.json; the departures are under Departures)</summary>", ""]
    said = {"not run": shown.not_checked or "not run"}
    lines += [f"- {VERDICT_MARK[v]} {md(said.get(v, v))} ({len(ids)}): {md(', '.join(ids), None)}"
              for v, ids in by_verdict.items()]
    return [*lines, "", "</details>", ""]


def _reason(rv: RecordVerdict) -> str:
    """A departing record's line as the departures say it (its check's message may be a Python repr or a
    bare number, issue 42); any other record's reason, or what its tests noted."""
    if rv.verdict in DEPARTING and rv.reason:
        return headline(rv, rv.evidence)
    return rv.reason or _noted(rv)


def _noted(rv: RecordVerdict) -> str:
    """What a record's tests noted beside the verdict (a claim that moved: 'line 11 (moved from line 12)')."""
    notes = list(dict.fromkeys(n for t in rv.tests for n in t.notes))
    return "noted: " + "; ".join(notes) if notes else ""


def _record_id(rv: RecordVerdict) -> str:
    aliases = f" ({md(', '.join(rv.aliases))})" if rv.aliases else ""
    return f"**{md(rv.id)}**{aliases}"


def html(shown: Records) -> list[Content]:
    common = shown.transcript
    said_once: Content = (
        tag("p", "Every test's exchange (every frame sent and received, and the server's stderr) is in ",
            tag("code", common), ", unless its row names another." if shown.others else ".", class_="muted")
        if common else ""
    )
    return [
        tag("h2", "Records", id="records"),
        said_once,
        [_record(rv, shown.audits.get(rv.id), common, shown.evidence.get(rv.id), shown.verdict(rv))
         for rv in shown.records],
    ]


def _test_table(rv: RecordVerdict, common: str | None) -> Markup:
    """The record's tests; the transcript column only where a test's differs from the one said above."""
    own = any(t.transcript != common for t in rv.tests)
    failed = any(t.status != "passed" for t in rv.tests)
    header = ["test", "status", "examples", *(["message"] if failed else []),
              *(["transcript"] if own else [])]
    rows: list[list[Content]] = [
        [
            check_name(t.nodeid),
            t.status,
            t.examples,
            *([tag("span", t.message, class_="data") if t.status != "passed" else ""] if failed else []),
            *([t.transcript or ""] if own else []),
        ]
        for t in rv.tests
    ]
    return table(header, rows)


def _claim_audit(rv: RecordVerdict, audit: str, said: str = "") -> Markup:
    """The second question a claim record answers, beside its verdict: the two read as one otherwise."""
    first = {
        "holds": f"This record holds: the server still makes claim {rv.id}.",
        "deviates": f"This record deviates: the server no longer makes claim {rv.id} as the documents say.",
    }.get(rv.verdict,
          f"This record is {said or rv.verdict}: whether the server makes claim {rv.id} is unknown.")
    return tag(
        "p",
        first,
        " The claim audit asks whether the claim is true of its behaviour: ",
        tag("a", tag("strong", audit), href=f"#claim-{rv.id}"),
        ".",
    )


def _record(
    rv: RecordVerdict, audit: str | None, common: str | None, evidence: Evidence | None = None,
    said: str | None = None,
) -> Markup:
    own_transcripts = [t for t in rv.transcripts if t != common]
    body: list[Content] = [tag("p", rv.statement)]
    if audit is not None:
        body.append(_claim_audit(rv, audit, said or ""))
    if rv.reason:
        body.append(tag("p", tag("strong", "Reason: "), rv.reason))
    if evidence is not None and rv.verdict in ("deviates", "error"):
        body += [tag("h4", "The pair: the original's answer beside this server's"), *evidence_html(evidence)]
    if rv.tests:
        over = f"{counted(rv.examples, 'generated example')} over {counted(len(rv.tests), 'test')}:"
        body += [tag("p", over),
                 _test_table(rv, common)]
    if noted := _noted(rv):
        body.append(tag("p", tag("strong", "Noted: "), noted.removeprefix("noted: ")))
    ce = rv.counterexample
    if ce is not None:
        body += [
            tag("h4", "Smallest counterexample"),
            tag("p", check_name(ce.test)),
            tag("pre", ce.falsifying),
            tag("h4", "Replay on a fresh process (one frame per line on stdin)"),
            tag("pre", "\n".join(ce.replay)),
        ]
        if ce.exchange:
            body += [
                tag("h4", f"Exchange ({len(ce.exchange)} events)"),
                tag("pre", "\n".join(f"{e.kind:>8}  {e.data.rstrip()[:EVENT_CHARS]}" for e in ce.exchange)),
            ]
    body += [
        tag("h4", "In the documents"),
        table(
            ["", ""],
            [
                ["aliases", ", ".join(rv.aliases) or "—"],
                ["anchors", "; ".join(rv.anchors) or "—"],
                ["kind", rv.kind],
                ["observable through", ", ".join(rv.channels) or "—"],
                ["evidence", f"{rv.evidence_before} → {rv.evidence_after}"],
                *([["transcripts", ", ".join(own_transcripts)]] if own_transcripts else []),
            ],
        ),
    ]
    open_ = "open" if rv.verdict in ("deviates", "error") and not rv.explained_by else None
    explained: Content = ""
    if rv.explained_by:
        explained = [" explained by ", tag("a", rv.explained_by, href=f"#cause-{rv.explained_by}")]
    audited: Content = [" · claim audit: ", tag("strong", audit)] if audit is not None else ""
    summary = tag(
        "summary",
        tag("strong", rv.id),
        f" ({', '.join(rv.aliases)}) " if rv.aliases else " ",
        verdict(rv.verdict, said),
        explained,
        audited,
        " ",
        tag("span", rv.statement[:140], class_="muted"),
    )
    return tag("details", summary, body, open=open_, id=f"rec-{rv.id}")


SECTION = section("records", view, markdown=markdown, html=html, anchor=Anchor("records", "Records"))
POINTING = section("records", view, markdown=markdown_pointing)
"""The records as report.md shows them when nothing longer fits (`report/markdown.py`)."""
