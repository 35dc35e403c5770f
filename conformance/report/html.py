"""report.html: one self-contained file for a reviewer — no scripts, no external resources.

Built only from `markup.tag`, which escapes every string it is given: server text can never become markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from conformance.report.markup import Content, Markup, join, raw_css, tag
from conformance.report.model import VERDICTS, ClaimVerdict, RecordVerdict, Report, TestRef
from conformance.report.text import VERDICT_MARK, gate_sentence, identity_rows

_CSS: Final = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:75em;padding:0 1em;color:#1d1d1f}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .5em;
vertical-align:top;text-align:left}th{background:#f4f4f6}
pre{background:#f6f8fa;padding:.6em;overflow-x:auto;white-space:pre-wrap;word-break:break-all;max-height:40em}
.v{font-weight:600;white-space:nowrap}.holds{color:#137333}.deviates{color:#b3261e}.error{color:#8e24aa}
.not-observable,.not-run{color:#5f6368}.gate{padding:.6em 1em;border-radius:6px;font-weight:600}
.pass{background:#e6f4ea}.fail{background:#fce8e6}details{margin:.3em 0}summary{cursor:pointer}
.muted{color:#5f6368}code{background:#f1f1f4;padding:0 .2em}
"""
_CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'"
)
EVENT_CHARS: Final = 4000


def _verdict(v: str) -> Markup:
    return tag("span", f"{VERDICT_MARK.get(v, '')} {v}", class_=f"v {v.replace(' ', '-')}")


def _table(header: list[str], rows: list[list[Content]]) -> Markup:
    return tag(
        "table",
        tag("tr", [tag("th", h) for h in header]),
        [tag("tr", [tag("td", cell) for cell in row]) for row in rows],
    )


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
        _table(
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
            _table(["test", "status", "examples", "message", "transcript"], [_test_row(t) for t in rv.tests])
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
    open_ = "open" if rv.verdict in ("deviates", "error") else None
    summary = tag(
        "summary",
        tag("strong", rv.id),
        f" ({', '.join(rv.aliases)}) " if rv.aliases else " ",
        _verdict(rv.verdict),
        " ",
        tag("span", rv.statement[:140], class_="muted"),
    )
    return tag("details", summary, body, open=open_, id=f"rec-{rv.id}")


def _claim(c: ClaimVerdict) -> list[Content]:
    observations = tag(
        "ul",
        [
            tag("li", tag("strong", o.verdict), ": ", o.observation, " ", tag("span", o.test, class_="muted"))
            for o in c.observations
        ],
    )
    return [tag("strong", c.claim), c.statement, tag("span", c.verdict, class_="v"), observations]


def render_html(report: Report) -> str:
    s = report.summary
    g = report.gate
    sections: list[Content] = [
        tag("h1", "Conformance report: ", tag("code", report.target.spec)),
        tag("p", gate_sentence(g), class_=f"gate {'pass' if g.passed else 'fail'}"),
    ]
    if not report.preflight.ok:
        sections.append(
            tag(
                "p",
                "The target could not be checked: ",
                tag("code", report.preflight.error or ""),
                class_="gate fail",
            )
        )
        if report.preflight.stderr_tail:
            sections += [tag("h4", "Its stderr (tail)"), tag("pre", report.preflight.stderr_tail)]
    sections += [
        _table(["verdict", "records"], [[_verdict(v), s.counts.get(v, 0)] for v in VERDICTS]),
        tag(
            "p",
            f"{s.records} records; {s.observed} observed in this run, {s.moved_to_observed} moved from "
            f"implemented to observed; {s.examples} generated examples.",
        ),
    ]
    gate_rows: list[list[Content]] = []
    for label, entries in (
        ("not in baseline", g.unexpected),
        ("stale", g.stale),
        ("not confirmed", g.unconfirmed),
        ("expected", g.expected),
    ):
        gate_rows += [
            [label, tag("a", e.record, href=f"#rec-{e.record}"), _verdict(e.verdict), e.expected, e.reason]
            for e in entries
        ]
    if gate_rows or g.baseline:
        sections += [
            tag("h2", "Gate"),
            tag("p", "Baseline: ", tag("code", g.baseline or "none")),
            _table(["", "record", "observed", "baseline", "reason"], gate_rows),
        ]
    if report.findings or report.unregistered_deviations:
        sections += [
            tag("h2", "Findings"),
            tag(
                "p",
                "Records contradicted by observation on the original, as amendments in the "
                "documents' own form; the evidence anchor is this run's.",
            ),
            tag("p", "No finding registered in fixtures/findings.yaml for this target.")
            if not report.findings
            else _table(
                [
                    "amendment",
                    "annotates",
                    "finding",
                    "evidence anchor",
                    "superseded value",
                    "reproduced in this run",
                ],
                [
                    [
                        tag("strong", f.amendment),
                        tag("a", f.annotates, href=f"#rec-{f.annotates}"),
                        f.finding,
                        tag("ul", [tag("li", a) for a in f.evidence_anchor]),
                        f.superseded,
                        "yes" if f.reproduced else f"no ({f.verdict})",
                    ]
                    for f in report.findings
                ],
            ),
        ]
        if report.unregistered_deviations:
            sections += [
                tag("p", "Deviating on the original with no finding registered:"),
                tag(
                    "ul",
                    [
                        tag("li", tag("a", u.record, href=f"#rec-{u.record}"), ": ", u.message)
                        for u in report.unregistered_deviations
                    ],
                ),
            ]
    if report.claims:
        sections += [
            tag("h2", "Claims"),
            _table(["claim", "statement", "verdict", "observations"], [_claim(c) for c in report.claims]),
        ]
    sections += [
        tag("h2", "Records"),
        [_record(rv) for rv in report.records],
        tag("h2", "Identity"),
        _table(["", ""], [[k, tag("code", v)] for k, v in identity_rows(report)]),
    ]
    head = tag(
        "head",
        tag("meta", charset="utf-8"),
        tag("meta", http_equiv="Content-Security-Policy", content=_CSP),
        tag("meta", name="viewport", content="width=device-width, initial-scale=1"),
        tag("title", f"Conformance report: {report.target.spec}"),
        tag("style", raw_css(_CSS)),
    )
    return "<!DOCTYPE html>\n" + tag("html", head, tag("body", join(sections, "\n")), lang="en") + "\n"


def write_html(report: Report, path: Path) -> None:
    path.write_text(render_html(report), encoding="utf-8")
