"""report.html: one self-contained file for a reviewer — no scripts, no external resources.

Built only from `markup.tag`, which escapes every string it is given: server text can never become markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from conformance.report.markup import Content, Markup, join, tag
from conformance.report.model import (
    VERDICTS,
    ClaimVerdict,
    Difference,
    RecordVerdict,
    Report,
    RootCause,
    StoreGrowth,
    TestRef,
)
from conformance.report.style import page, table, toc
from conformance.report.svg import COLOURS, Series, legend, line_chart, verdict_bar, verdict_mark
from conformance.report.text import (
    difference_groups,
    growth_rows,
    headline,
    identity_rows,
    is_comparison_only,
    paired_answers,
    run_causes,
)

EVENT_CHARS: Final = 4000


def _verdict(v: str) -> Markup:
    return tag("span", verdict_mark(v), v, class_=f"v {v.replace(' ', '-')}")


def _table(header: list[str], rows: list[list[Content]]) -> Markup:
    return table(header, rows, wide=len(header) > 4)


def _verdict_figure(report: Report) -> Markup:
    """The verdict distribution as a bar, with its counts as a legend (the table above says the same)."""
    counts = report.summary.counts
    title = "Records per verdict: " + ", ".join(f"{v} {counts.get(v, 0)}" for v in VERDICTS)
    return tag(
        "figure",
        verdict_bar(counts, VERDICTS, title=title),
        legend([(COLOURS[v], f"{v} ({counts.get(v, 0)})") for v in VERDICTS]),
    )


def _growth_figure(growth: StoreGrowth) -> Markup:
    """History length and server RSS against accepted calls, each with its table of checkpoints."""
    lengths = Series("thoughtHistoryLength", [(p.calls, p.history_length) for p in growth.points])
    rss = Series(
        "server RSS (MiB)",
        [(p.calls, p.rss_bytes / 2**20) for p in growth.points if p.rss_bytes is not None],
        colour="#c5221f",
    )
    parts: list[Content] = [
        tag("p", f"{', '.join(growth.records)} — ", tag("code", growth.test)),
        tag("figure", line_chart([lengths], title="thoughtHistoryLength against accepted calls",
                                 x_label="accepted calls", y_label="thoughtHistoryLength"),
            tag("figcaption", "thoughtHistoryLength reported by the server after each checkpoint's call")),
    ]
    if rss.points:
        parts.append(
            tag("figure", line_chart([rss], title="server RSS against accepted calls",
                                     x_label="accepted calls", y_label="RSS (MiB)",
                                     y_format=lambda v: f"{v:.0f}"),
                tag("figcaption", "VmRSS of the server's process group, read from /proc during the run"))
        )
    header, rows = growth_rows(growth)
    parts.append(tag("details", tag("summary", "Checkpoints as a table"),
                     table(header, [list(r) for r in rows], numeric=range(len(header)))))
    return join(parts)


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
    open_ = "open" if rv.verdict in ("deviates", "error") and not rv.explained_by else None
    explained: Content = ""
    if rv.explained_by:
        explained = [" explained by ", tag("a", rv.explained_by, href=f"#cause-{rv.explained_by}")]
    summary = tag(
        "summary",
        tag("strong", rv.id),
        f" ({', '.join(rv.aliases)}) " if rv.aliases else " ",
        _verdict(rv.verdict),
        explained,
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


def _difference(d: Difference) -> Markup:
    mark = "accepted" if d.accepted else "differs"
    body: list[Content] = [
        _table(
            ["", ""],
            [
                ["id", tag("code", d.id)],
                ["aspect", d.aspect],
                ["records", ", ".join(d.records) or "—"],
                ["A", tag("code", d.a)],
                ["B", tag("code", d.b)],
                ["shrunk", "yes" if d.minimized else "no (budget)"],
            ],
        ),
        tag("h4", "Replay on a fresh process of each target (one frame per line on stdin)"),
        tag("pre", "\n".join(d.program)),
    ]
    summary = tag("summary", tag("span", mark, class_=f"v {'holds' if d.accepted else 'deviates'}"), " ",
                  d.summary)
    return tag("details", summary, body, id=f"diff-{d.id}")


def _comparison(report: Report) -> list[Content]:
    c = report.comparison
    if c is None:
        return []
    out: list[Content] = [
        tag("h2", "Differences: ", tag("code", c.a.spec), " (A) vs ", tag("code", c.b.spec), " (B)",
            id="differences"),
        tag("p", f"{len(c.differences)} difference(s); {c.programs} programs, {c.calls} calls per side"
            + ("; the search stopped at its budget." if c.budget_reached else ".")),
    ]
    for cause, members in difference_groups(report):
        if cause is None:
            out.append(tag("h3", "Not grouped"))
        else:
            out += [
                tag("h3", cause.summary),
                tag("p", "Root cause ", tag("code", cause.id), ": records ", ", ".join(cause.records) or "—",
                    f"; explains {', '.join(cause.explains)}" if cause.explains else ""),
            ]
        out += [_difference(d) for d in members]
    if c.normalized:
        out += [
            tag("h4", "Normalized before comparing (SDK-owned)"),
            tag("ul", [tag("li", n) for n in c.normalized]),
        ]
    return out


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
    if cause.example:
        body += [
            tag("h4", "Smallest example, to replay on a fresh process (one frame per line on stdin)"),
            tag("p", tag("code", cause.test or "")),
            tag("pre", "\n".join(cause.example)),
        ]
    return tag("section", body)


def render_html(report: Report) -> str:
    s = report.summary
    g = report.gate
    sections: list[Content] = [
        tag("h1", "Conformance report: ", tag("code", report.target.spec)),
        tag("p", headline(report), class_=f"gate {'pass' if g.passed else 'fail'}"),
    ]
    if is_comparison_only(report):
        sections += _comparison(report)
        identity = _table(["", ""], [[k, tag("code", v)] for k, v in identity_rows(report)])
        sections += [tag("h2", "Identity"), identity]
        return _page(report, sections)
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
        _contents(report),
        _table(["verdict", "records"], [[_verdict(v), s.counts.get(v, 0)] for v in VERDICTS]),
        _verdict_figure(report),
        tag(
            "p",
            f"{s.records} records; {s.observed} observed in this run, {s.moved_to_observed} moved from "
            f"implemented to observed; {s.examples} generated examples.",
        ),
    ]
    if run_causes(report):
        sections += [
            tag("h2", "Root causes", id="root-causes"),
            tag("p", f"{len(run_causes(report))} behaviour change(s) account for every failing test; the "
                "other departures follow from them (each keeps its verdict, marked explained by)."),
            [_root_cause(c) for c in run_causes(report)],
        ]
    gate_rows: list[list[Content]] = []
    for label, entries in (
        ("not in baseline", g.unexpected),
        ("stale", g.stale),
        ("not confirmed", g.unconfirmed),
        ("departure changed", g.changed),
        ("expected", g.expected),
    ):
        gate_rows += [
            [label, tag("a", e.record, href=f"#rec-{e.record}"), _verdict(e.verdict), e.expected, e.reason]
            for e in entries
        ]
    if gate_rows or g.baseline or g.changed:
        sections += [
            tag("h2", "Gate", id="gate"),
            tag("p", "Baseline: ", tag("code", g.baseline or "none")),
            _table(["", "record", "observed", "baseline", "reason"], gate_rows),
        ]
    if g.changed:
        sections += [
            tag("h3", "Departure changed"),
            tag("p", "Listed in the baseline, but its witness answers differ from the pinned ones."),
        ]
        for e in g.changed:
            rows: list[list[Content]] = [
                [tag("code", step), tag("code", before), tag("code", after)]
                for step, before, after in paired_answers(e.before, e.after)
            ]
            sections += [
                tag("h4", tag("a", e.record, href=f"#rec-{e.record}"), " — ", e.reason),
                _table(["witness", "before (baseline)", "after (this run)"], rows),
            ]
    if report.findings or report.unregistered_deviations:
        sections += [
            tag("h2", "Findings", id="findings"),
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
    sections += _comparison(report)
    if report.claims:
        sections += [
            tag("h2", "Claims", id="claims"),
            _table(["claim", "statement", "verdict", "observations"], [_claim(c) for c in report.claims]),
        ]
    if report.growth:
        sections += [
            tag("h2", "Store growth", id="growth"),
            tag("p", "The store observed growing on one process, checkpoint by checkpoint (RTE-5, ABS-11: "
                "no cap, eviction or reset)."),
            [_growth_figure(g) for g in report.growth],
        ]
    sections += [
        tag("h2", "Records", id="records"),
        [_record(rv) for rv in report.records],
        tag("h2", "Identity", id="identity"),
        _table(["", ""], [[k, tag("code", v)] for k, v in identity_rows(report)]),
    ]
    return _page(report, sections)


def _page(report: Report, sections: list[Content]) -> str:
    return page(f"Conformance report: {report.target.spec}", join(sections, "\n"))


def _contents(report: Report) -> Markup:
    """Links to the sections this report has."""
    g = report.gate
    entries = [
        ("root-causes", "Root causes", bool(run_causes(report))),
        ("gate", "Gate", bool(g.unexpected or g.stale or g.unconfirmed or g.expected or g.baseline)),
        ("findings", "Findings", bool(report.findings or report.unregistered_deviations)),
        ("differences", "Differences", report.comparison is not None),
        ("claims", "Claims", bool(report.claims)),
        ("growth", "Store growth", bool(report.growth)),
        ("records", "Records", True),
        ("identity", "Identity", True),
    ]
    return toc([(anchor, label) for anchor, label, present in entries if present])


def write_html(report: Report, path: Path) -> None:
    path.write_text(render_html(report), encoding="utf-8")
