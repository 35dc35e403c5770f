"""Every record of the catalog with its verdict: a table in report.md, the full evidence in report.html."""

from __future__ import annotations

from typing import Final

from conformance.core.failure_text import one_line
from conformance.report.html_parts import table, verdict
from conformance.report.markdown_parts import md
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, Markup, tag
from conformance.report.model import RecordVerdict, Report, TestRef
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, section
from conformance.report.text import VERDICT_MARK, is_comparison_only

EVENT_CHARS: Final = 4000


def view(report: Report) -> tuple[RecordVerdict, ...] | NotShown:
    return NOT_SHOWN if is_comparison_only(report) else tuple(report.records)


def markdown(records: tuple[RecordVerdict, ...], detail: Detail) -> list[str]:
    lines = ["<details><summary>All records</summary>", ""]
    lines += md_table(
        ["record", "verdict", "tests", "examples", "evidence", "reason"],
        [
            [
                _record_id(rv),
                f"{VERDICT_MARK[rv.verdict]} {rv.verdict}"
                + (f" (explained by {md(rv.explained_by)})" if rv.explained_by else ""),
                str(len(rv.tests)),
                str(rv.examples),
                f"{md(rv.evidence_before)} → {md(rv.evidence_after)}",
                md(one_line(rv.reason), 200 if detail else 80),
            ]
            for rv in records
        ],
    )
    return [*lines, "", "</details>", ""]


def _record_id(rv: RecordVerdict) -> str:
    aliases = f" ({md(', '.join(rv.aliases))})" if rv.aliases else ""
    return f"**{md(rv.id)}**{aliases}"


def html(records: tuple[RecordVerdict, ...]) -> list[Content]:
    return [tag("h2", "Records", id="records"), [_record(rv) for rv in records]]


def _test_row(t: TestRef) -> list[Content]:
    return [
        tag("code", t.nodeid),
        t.status,
        t.examples,
        t.message if t.status != "passed" else "",
        t.transcript or "",
    ]


def _record(rv: RecordVerdict) -> Markup:
    body: list[Content] = [
        tag("p", rv.statement),
        table(
            ["", ""],
            [
                ["aliases", ", ".join(rv.aliases) or "—"],
                ["anchors", "; ".join(rv.anchors) or "—"],
                ["kind", rv.kind],
                ["observable through", ", ".join(rv.channels) or "—"],
                ["evidence", f"{rv.evidence_before} → {rv.evidence_after}"],
                ["reason", rv.reason or "—"],
                ["examples", rv.examples],
                ["transcripts", ", ".join(rv.transcripts) or "—"],
            ],
        ),
    ]
    if rv.tests:
        body.append(
            table(["test", "status", "examples", "message", "transcript"], [_test_row(t) for t in rv.tests])
        )
    ce = rv.counterexample
    if ce is not None:
        body += [
            tag("h4", "Smallest counterexample"),
            tag("p", tag("code", ce.test)),
            tag("pre", ce.falsifying),
            tag("h4", "Replay on a fresh process (one frame per line on stdin)"),
            tag("pre", "\n".join(ce.replay)),
        ]
        if ce.exchange:
            body += [
                tag("h4", f"Exchange ({len(ce.exchange)} events)"),
                tag("pre", "\n".join(f"{e.kind:>8}  {e.data.rstrip()[:EVENT_CHARS]}" for e in ce.exchange)),
            ]
    open_ = "open" if rv.verdict in ("deviates", "error") and not rv.explained_by else None
    explained: Content = ""
    if rv.explained_by:
        explained = [" explained by ", tag("a", rv.explained_by, href=f"#cause-{rv.explained_by}")]
    summary = tag(
        "summary",
        tag("strong", rv.id),
        f" ({', '.join(rv.aliases)}) " if rv.aliases else " ",
        verdict(rv.verdict),
        explained,
        " ",
        tag("span", rv.statement[:140], class_="muted"),
    )
    return tag("details", summary, body, open=open_, id=f"rec-{rv.id}")


SECTION = section("records", view, markdown=markdown, html=html, anchor=Anchor("records", "Records"))
