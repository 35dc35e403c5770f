"""report.md: for a pull-request comment or a CI step summary — short first, details folded.

Every string from a server or a generator is escaped: no HTML, no Markdown markup, no control bytes.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

from conformance.report.escape import safe
from conformance.report.markup import safe_text
from conformance.report.model import VERDICTS, Difference, RecordVerdict, Report, RootCause, StoreGrowth
from conformance.report.text import (
    VERDICT_MARK,
    around_difference,
    difference_groups,
    gate_sentence,
    growth_rows,
    headline,
    identity_rows,
    is_comparison_only,
    paired_answers,
    run_causes,
)

_MD_SPECIAL: Final = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")
EXCHANGE_EVENTS: Final = 12
EVENT_CHARS: Final = 300
REPLAY_FRAMES: Final = 14
BUDGET: Final = 60_000
"""GitHub refuses comments over 65,536 characters: details are shed, level by level, to stay under this."""


def md(text: str, limit: int | None = 400) -> str:
    """Inline text: one line, HTML-escaped, Markdown punctuation backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(safe(text, limit), quote=False))


def in_html(text: str, limit: int | None = 400) -> str:
    """Text inside our own HTML elements, where Markdown is not parsed: entities only, backticks too."""
    return html.escape(safe(text, limit)).replace("`", "&#96;")


def code_block(text: str, lang: str = "") -> str:
    """A fenced block no content can close: the fence is longer than any backtick run inside."""
    body = safe_text(text)
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{body}\n{fence}"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _record_id(rv: RecordVerdict) -> str:
    aliases = f" ({md(', '.join(rv.aliases))})" if rv.aliases else ""
    return f"**{md(rv.id)}**{aliases}"


def _departure(rv: RecordVerdict, detail: int) -> list[str]:
    """detail 2: counterexample, replay and exchange; 1: counterexample only; 0: the verdict line."""
    explained = f" (explained by {in_html(rv.explained_by)})" if rv.explained_by else ""
    lines = [
        f"<details><summary>{VERDICT_MARK[rv.verdict]} {in_html(rv.id)}{explained} — "
        f"{in_html(rv.reason, 160)}</summary>",
        "",
    ]
    lines.append(f"{md(rv.statement)}")
    lines.append("")
    for test in rv.tests:
        lines.append(
            f"- `{safe(test.nodeid).replace('`', chr(39))}`: {test.status}, {test.examples} examples"
            + (f" — {md(test.message, 300)}" if test.message and test.status != "passed" else "")
        )
    ce = rv.counterexample
    if ce is not None and detail >= 1:
        cut = "" if ce.minimized else ", not fully minimized: shrinking reached its time budget"
        lines += ["", f"Smallest counterexample ({md(ce.test, 200)}{cut}):", "",
                  code_block(ce.falsifying[:3000])]
        if ce.replay and detail >= 2:
            replay = _replay_block(ce.replay, "records → counterexample → replay")
            lines += ["", "Replay on a fresh process (one JSON-RPC frame per line on stdin):", "", replay]
        if ce.exchange and detail >= 2:
            shown = ce.exchange[-EXCHANGE_EVENTS:]
            text = "\n".join(f"{e.kind:>8}  {e.data.rstrip()[:EVENT_CHARS]}" for e in shown)
            lines += ["", f"Exchange (last {len(shown)} of {len(ce.exchange)} events):", "", code_block(text)]
    if rv.transcripts:
        lines += ["", "Transcripts: " + ", ".join(f"`{safe(t)}`" for t in rv.transcripts)]
    lines += ["", "</details>", ""]
    return lines


def _growth(growth: StoreGrowth) -> list[str]:
    """The text equivalent of report.html's growth pictures: a sentence and the checkpoints' table."""
    points = growth.points
    test = safe(growth.test).replace("`", "'")
    lines = ["## Store growth", "", f"{md(', '.join(growth.records))}: `{test}`"]
    first, last = points[0], points[-1]
    sentence = (
        f"thoughtHistoryLength went from {first.history_length:,} to {last.history_length:,} over "
        f"{last.calls - first.calls:,} accepted calls"
    )
    if first.rss_bytes is not None and last.rss_bytes is not None:
        sentence += (
            f"; the server's RSS from {first.rss_bytes / 2**20:.1f} to {last.rss_bytes / 2**20:.1f} MiB "
            "(over a few thousand calls the runtime's own warm-up dominates it: the benchmark's memory "
            "section measures the per-call growth over 100,000)"
        )
    lines += ["", sentence + ".", ""]
    header, rows = growth_rows(growth)
    step = max(len(rows) // 10, 1)
    shown = [r for i, r in enumerate(rows) if i % step == 0 or i == len(rows) - 1]
    lines += _table(header, shown)
    lines.append("")
    return lines


def _difference(d: Difference, detail: int) -> list[str]:
    """detail 2: both answers and the replay frames; 1: the frames; 0: the line only."""
    mark = "accepted" if d.accepted else "differs"
    lines = [f"- **{md(d.summary, 300)}** ({mark}; records {md(', '.join(d.records) or '—')}; "
             f"id `{safe(d.id).replace('`', chr(39))}`{'' if d.minimized else '; not fully shrunk'})"]
    if detail >= 2:
        lines += ["", f"  - A: {md(d.a, 400)}", f"  - B: {md(d.b, 400)}"]
    if detail >= 1 and d.program:
        frames = d.program if sum(map(len, d.program)) < 4000 else [*d.program[:2], "… (see report.json)"]
        lines += ["", "  Replay on a fresh process of each target:", "",
                  "\n".join("  " + line for line in code_block("\n".join(frames), "json").split("\n"))]
    lines.append("")
    return lines


def _comparison(report: Report, detail: int) -> list[str]:
    c = report.comparison
    if c is None:
        return []
    lines = [f"## Differences: {md(c.a.spec)} (A) vs {md(c.b.spec)} (B)", ""]
    lines.append(
        f"{len(c.differences)} difference(s) in {len(difference_groups(report))} root cause(s); "
        f"{c.programs} programs, {c.calls} calls per side"
        + ("; the search stopped at its budget." if c.budget_reached else ".")
    )
    lines.append("")
    for cause, members in difference_groups(report):
        if cause is None:
            lines += ["### Not grouped", ""]
        else:
            lines += [f"### {md(cause.summary, 300)}", "",
                      f"Root cause `{safe(cause.id)}`: records {md(', '.join(cause.records) or '—')}"
                      + (f"; explains {md(', '.join(cause.explains))}" if cause.explains else ""), ""]
        for d in members:
            lines += _difference(d, detail)
    if c.normalized:
        lines += ["<details><summary>Normalized before comparing (SDK-owned)</summary>", ""]
        lines += [f"- {md(n, 400)}" for n in c.normalized]
        lines += ["", "</details>", ""]
    return lines


def _replay_block(frames: Sequence[str], where: str = "root_causes → example") -> str:
    if len(frames) <= REPLAY_FRAMES and sum(map(len, frames)) < 4000:
        return code_block("\n".join(frames), "json")
    return f"{len(frames)} frames: see `report.json` ({where})."


def _root_causes(causes: Sequence[RootCause], detail: int) -> list[str]:
    """Leading section: the behaviour changes, each with the records it explains and its smallest example."""
    lines = [
        "## Root causes",
        "",
        f"{len(causes)} behaviour change(s) account for every failing test; the other departures follow "
        "from them (marked *explained by* below, each keeps its verdict).",
        "",
    ]
    for cause in causes:
        lines += [f"### {md(', '.join(cause.records))}", "", md(cause.summary, 400), ""]
        if cause.explains:
            lines += [f"Explains {len(cause.explains)}: {md(', '.join(cause.explains), 1000)}", ""]
        if cause.example and detail >= 1:
            test = f" ({md(cause.test, 200)})" if cause.test else ""
            lines += [f"Smallest example{test}, to replay on a fresh process:", "",
                      _replay_block(cause.example), ""]
    return lines


def render_markdown(report: Report) -> str:
    for detail in (2, 1, 0):
        text = _render(report, detail)
        if len(text) <= BUDGET:
            return text
    return text


def _render(report: Report, detail: int) -> str:
    s = report.summary
    if is_comparison_only(report):
        assert report.comparison is not None
        c = report.comparison
        lines = [f"# Comparison: {md(c.a.spec)} vs {md(c.b.spec)}", ""]
        lines += [f"**{md(headline(report), None)}**", ""]
        lines += _comparison(report, detail)
        lines += ["<details><summary>Identity</summary>", ""]
        lines += _table(["", ""], [[md(k), md(v, 600)] for k, v in identity_rows(report)])
        lines += ["", f"B: {md(' '.join(c.b.command), 600)}", "", "</details>", ""]
        return "\n".join(lines)
    lines = [
        f"# Conformance report: {md(report.target.spec)}",
        "",
        f"**{md(gate_sentence(report.gate), None)}**",
        "",
    ]
    if not report.preflight.ok:
        lines += [
            f"> The target could not be checked: {md(report.preflight.error or 'unknown error', 600)}",
            "",
        ]
    if report.run.interrupted:
        why = md(report.run.interrupted, 600)
        lines += [f"> The run stopped early — {why}; unfinished records are not run.", ""]
    lines += _table(
        ["verdict", "records"], [[f"{VERDICT_MARK[v]} {v}", str(s.counts.get(v, 0))] for v in VERDICTS]
    )
    lines += [
        "",
        f"{s.records} records; {s.observed} observed in this run, {s.moved_to_observed} of them moved "
        f"from *implemented* to *observed*; {s.examples} generated examples; profile "
        f"`{safe(report.harness.profile)}`, seed `{safe(report.harness.seed or 'random')}`.",
        "",
    ]

    if run_causes(report):
        lines += _root_causes(run_causes(report), detail)

    departures = [rv for rv in report.records if rv.verdict in ("deviates", "error")]
    if departures:
        lines += ["## Departures", ""]
        if detail < 2:
            lines += ["Details shortened to fit a comment: the full evidence is in report.html.", ""]
        for rv in departures:
            lines += _departure(rv, detail)

    g = report.gate
    if g.baseline is not None or not g.passed:
        lines += [
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
                lines += [f"- **{md(e.record)}** ({md(e.reason, 200)})", ""]
                for step, full_before, full_after in paired_answers(e.before, e.after):
                    before, after = around_difference(full_before, full_after, 600)
                    lines += [
                        f"  - witness <code>{in_html(step, 80)}</code>",
                        f"    - before: <code>{in_html(before, 600)}</code>",
                        f"    - after: <code>{in_html(after, 600)}</code>",
                    ]
                lines.append("")
        for title, entries in (
            ("Not in the baseline", g.unexpected),
            ("Stale (now holds)", g.stale),
            ("Not confirmed", g.unconfirmed),
            ("Expected by the baseline", g.expected),
        ):
            if entries:
                lines += [f"**{title}**", ""]
                lines += _table(
                    ["record", "observed", "baseline", "reason"],
                    [[md(e.record), e.verdict, e.expected, md(e.reason, 200)] for e in entries],
                )
                lines.append("")

    if report.findings or report.unregistered_deviations:
        lines += [
            "## Findings",
            "",
            "Amendments in the documents' form; the evidence anchor is this run's.",
            "",
        ]
        lines += (
            ["No finding registered in fixtures/findings.yaml for this target."]
            if not report.findings
            else []
        )
        lines += (
            []
            if not report.findings
            else _table(
                ["amendment", "annotates", "finding", "evidence anchor", "superseded value", "reproduced"],
                [
                    [
                        md(f.amendment),
                        md(f.annotates),
                        md(f.finding, 800),
                        md("; ".join(f.evidence_anchor), 400),
                        md(f.superseded, 300),
                        "yes" if f.reproduced else f"no ({f.verdict})",
                    ]
                    for f in report.findings
                ],
            )
        )
        if report.unregistered_deviations:
            lines += [
                "",
                "Deviating on the original with no finding registered (a wrong test or a wrong record):",
                "",
            ]
            lines += [f"- {md(u.record)}: {md(u.message, 300)}" for u in report.unregistered_deviations]
        lines.append("")

    lines += _comparison(report, detail)

    if report.claims:
        lines += ["## Claims", ""]
        lines += _table(
            ["claim", "verdict", "observations"],
            [
                [
                    md(c.claim),
                    c.verdict,
                    "<br>".join(f"*{o.verdict}*: {md(o.observation, 300)}" for o in c.observations) or "—",
                ]
                for c in report.claims
            ],
        )
        lines.append("")

    for growth in report.growth:
        lines += _growth(growth)

    lines += ["<details><summary>All records</summary>", ""]
    lines += _table(
        ["record", "verdict", "tests", "examples", "evidence", "reason"],
        [
            [
                _record_id(rv),
                f"{VERDICT_MARK[rv.verdict]} {rv.verdict}"
                + (f" (explained by {md(rv.explained_by)})" if rv.explained_by else ""),
                str(len(rv.tests)),
                str(rv.examples),
                f"{md(rv.evidence_before)} → {md(rv.evidence_after)}",
                md(rv.reason, 200 if detail else 80),
            ]
            for rv in report.records
        ],
    )
    lines += ["", "</details>", "", "<details><summary>Identity</summary>", ""]
    lines += _table(["", ""], [[md(k), md(v, 600)] for k, v in identity_rows(report)])
    lines += ["", "</details>", ""]
    return "\n".join(lines)


def write_markdown(report: Report, path: Path) -> None:
    path.write_text(render_markdown(report), encoding="utf-8")
