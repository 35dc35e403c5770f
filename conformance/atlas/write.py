"""Writers of the atlas: `atlas.json` (validated against `schema.json` beside this module), `atlas.md`
for a pull request, `index.html` for a reviewer (self-contained: inline SVG and style, no script)."""

from __future__ import annotations

import json
import signal
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from conformance.atlas.grid import PACKAGING_SERVED
from conformance.atlas.model import (
    ATLAS_FORMAT,
    Atlas,
    Column,
    Judgement,
    Pair,
    UpstreamProblem,
    VerdictChange,
)
from conformance.atlas.sentences import cut_headline, negotiated, order_sentences
from conformance.atlas.svg import grid_svg, legend_svg
from conformance.catalog.schemas import first_violation, packaged_schema
from conformance.core.create import create_file, ensure_folder
from conformance.core.errors import HarnessError, InputError
from conformance.core.inputs import REPORT_BYTES, read_json, validated
from conformance.core.printable import encoded
from conformance.core.words import first_and_more
from conformance.drivers import cancel
from conformance.report.escape import safe
from conformance.report.markdown_parts import link, md
from conformance.report.markup import Content, Markup, join, raw_css, tag

SCHEMA_ID: Final = "https://seqthink-conformance.invalid/schemas/atlas-3.json"
SHORT: Final = {
    "holds": "H",
    "deviates": "D",
    "error": "E",
    "not observable": "n/o",
    "not run": "–",
    "absent": "·",
}
_CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'"
)
_CSS: Final = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:90em;padding:0 1em;color:#1d1d1f;
overflow-wrap:break-word}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ddd}h3{margin-top:1.4em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .5em;
vertical-align:top;text-align:left;overflow-wrap:break-word}th{background:#f4f4f6}
td a,.when{white-space:nowrap}.prose{display:block;min-width:9em}
td code{overflow-wrap:anywhere;display:inline-block;min-width:12em}
.scroll{max-width:100%;overflow-x:auto;margin:.5em 0}
pre{background:#f6f8fa;padding:.6em;overflow-x:auto;white-space:pre-wrap;word-break:break-all;max-height:24em}
.muted{color:#5f6368}code{background:#f1f1f4;padding:0 .2em}.grid{overflow-x:auto}
.yes{color:#b3261e;font-weight:600}.no{color:#137333}.contradicted{color:#b3261e;font-weight:600}
.supported{color:#137333}
"""


class AtlasFileError(HarnessError):
    """An atlas does not validate (written or read)."""


MAX_COLUMNS: Final = 256
"""The most columns an atlas holds, read or merged (every published release with its switch columns is far
fewer): the cost of reading and merging atlases, and atlas.md's size, are bounded by it."""
SUMMARY_BYTES: Final = 1_000_000
"""atlas.md's most bytes: under GitHub's 1 MiB job-summary limit (1,048,576 bytes), with room to spare."""
_CUT_NOTE_BYTES: Final = 2_000

class AtlasInputError(AtlasFileError, InputError):
    """An atlas.json is unreadable, too large, of another format, or does not validate (CLI exit status 4)."""


def generate_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"{ATLAS_FORMAT} drift atlas",
        **Atlas.model_json_schema(mode="serialization"),
    }


def schema_text() -> str:
    return json.dumps(generate_schema(), indent=2, ensure_ascii=False) + "\n"


def shipped_schema() -> dict[str, Any]:
    return packaged_schema("conformance.atlas")


def validate(document: object, where: str = "atlas", error: type[AtlasFileError] = AtlasFileError) -> None:
    violation = first_violation(shipped_schema(), document)
    if violation is not None:
        raise error(f"{where} does not match {ATLAS_FORMAT}: {violation}")


def load_atlas(path: Path) -> Atlas:
    document = read_json(path, what="atlas", limit=REPORT_BYTES, error=AtlasInputError, served=True)
    columns = document.get("columns") if isinstance(document, dict) else None
    if isinstance(columns, list) and len(columns) > MAX_COLUMNS:  # before validation: its cost is per column
        raise AtlasInputError(f"atlas {path} has {len(columns)} columns, more than an atlas's {MAX_COLUMNS}")
    validate(document, f"atlas {path}", AtlasInputError)
    return validated(Atlas, document, f"atlas {path}", AtlasInputError)


def write_atlas(atlas: Atlas, out: Path) -> None:
    ensure_folder(out)
    document = atlas.model_dump(mode="json")
    validate(document)
    create_file(out / "atlas.json", json.dumps(document, indent=2, ensure_ascii=False) + "\n", replace=True)
    create_file(out / "atlas.md", within_summary(render_markdown(atlas)), replace=True)
    create_file(out / "index.html", render_html(atlas), replace=True)


# -- shared views -----------------------------------------------------------------------------------------


def _releases(atlas: Atlas) -> list[Column]:
    return [c for c in atlas.columns if c.variant_of is None]


def identity_cells(column: Column) -> list[str]:
    ident = column.identity
    deps = ident.dependencies if ident is not None else {}
    others = ", ".join(f"{k} {v}" for k, v in deps.items() if k not in ("@modelcontextprotocol/sdk", "zod"))
    as_of = "—"
    if ident is not None and ident.resolution == "release":
        as_of = ident.resolved_as_of or "—"
    elif ident is not None and ident.resolution == "today":
        as_of = f"today ({ident.installed_at})"
    info = ", ".join(f"{k} {v}" for k, v in column.server_info.items())
    return [
        column.published or "—",
        as_of,
        (ident.sdk_version if ident is not None else None) or "—",
        (ident.zod_version if ident is not None else None) or "—",
        others or "—",
        info or "—",
        negotiated(column),
    ]


IDENTITY_HEAD: Final = [
    "column",
    "published",
    "tree as of",
    "SDK",
    "zod",
    "other deps",
    "serverInfo",
    "protocol offered → negotiated",
]


def _presence(value: bool | None) -> str:
    return "present" if value else "absent" if value is False else "unknown"


def _claim_rows(atlas: Atlas) -> tuple[list[str], list[tuple[str, dict[str, Judgement]]]]:
    labels = [c.label for c in _releases(atlas)]
    rows: dict[str, dict[str, Judgement]] = {}
    for j in atlas.claims:
        rows.setdefault(j.claim, {})[j.column] = j
    return labels, list(rows.items())


def _split(pair: Pair) -> tuple[list[str], list[VerdictChange], list[str], list[VerdictChange]]:
    """(served, verdict changes) of wire behaviour, then of packaging and identity (README, version strings,
    package metadata: `grid.grouped`)."""
    packaging_served = [c for c in pair.probe_changes if c.startswith(PACKAGING_SERVED)]
    served = [c for c in pair.probe_changes if c not in packaging_served]
    return (
        served,
        [c for c in pair.verdict_changes if c.group != "packaging"],
        packaging_served,
        [c for c in pair.verdict_changes if c.group == "packaging"],
    )


ATLAS_HEADLINE_CHARS: Final = 1800
"""atlas.md keeps a cause's headline whole up to this (a pull request's 300 would hide what a clause
names: audit V2, "…; and 9 more" in place of the snake_case mentions that remain); longer ones are cut at
a clause."""
PROTOCOL_NOTE: Final = (
    "Protocol offered → negotiated: each revision offered in `initialize` on a fresh process, and the "
    "revision the release answered with; `auto` is the official SDK client's own connection (it probes "
    "`server/discover` at 2026-07-28, then falls back to `initialize` offering 2025-11-25) and the "
    "revision it settled on."
)
"""Says what `auto` is (audit V1: the column read "auto → 2024-11-05" unexplained)."""


def switch_note(atlas: Atlas, pair: Pair) -> str:
    """What the counts leave out (audit M2): the comparison starts both releases without the switch, so a
    switch's arrival (0.6.2 → 2025.7.1: the thought leaves stderr with DISABLE_THOUGHT_LOGGING=true) is in
    none of its causes; said beside the counts, with the code named when both trees resolve alike."""
    arrivals = [c for c in pair.probe_changes if c.startswith("with ") and ": " in c]
    if not arrivals:
        return ""
    by_spec = {c.spec: c for c in atlas.columns}
    ia = by_spec[pair.a].identity if pair.a in by_spec else None
    ib = by_spec[pair.b].identity if pair.b in by_spec else None
    deps = ia.dependencies if ia is not None and ib is not None and ia.dependencies == ib.dependencies else {}
    alike = (f" Both trees resolve alike ({', '.join(f'{k} {v}' for k, v in sorted(deps.items()))}), so "
             f"it is the server's code." if deps else "")
    n = len(arrivals)
    return (f" The comparison starts both without the switch, so these counts leave out the "
            f"behaviour change{'s' if n != 1 else ''} seen with it (served: {first_and_more(arrivals, 1)})."
            f"{alike}")


PACKAGING_NOTE: Final = (
    "packaging and identity (read from the package's files: README, package.json's licence, author, "
    "repository, mcpName, dependency ranges and version pins; every record here failed only on a check of "
    "those files, none on the wire or stderr)"
)


def _took(atlas: Atlas) -> str:
    """How long the atlas took; a merge's time is the merge's alone (its columns ran elsewhere, before)."""
    took = f"{atlas.duration_s:.0f} s with {atlas.jobs} job(s)"
    if atlas.merged_from:
        n = len(atlas.merged_from)
        return f"merged from {n} folder{'s' if n != 1 else ''} in {took} (their runs' own time not counted)"
    return took


def _under(change: VerdictChange) -> str:
    """A change seen between the two releases' switch columns, said with its switch."""
    return f" (with {md(change.under)})" if change.under else ""


def _pair_title(atlas: Atlas, pair: Pair) -> str:
    names = {c.spec: c.label for c in atlas.columns}
    return f"{names.get(pair.a, pair.a)} → {names.get(pair.b, pair.b)}"


# -- Markdown -------------------------------------------------------------------------------------------


def _code(text: str) -> str:
    """A Markdown code span: labels and anchors read as written, no backslash escapes."""
    return "`" + safe(text, 300).replace("`", "'").replace("|", "¦") + "`"


def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return [
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(r) + " |" for r in rows),
    ]


def render_markdown(atlas: Atlas) -> str:
    lines = [
        "# Drift atlas",
        "",
        f"{len(atlas.columns)} columns, {len(atlas.grid)} records, profile `{md(atlas.profile)}`, seed "
        f"`{atlas.seed if atlas.seed is not None else 'random'}`, harness {md(atlas.harness.version)} "
        f"({md(atlas.harness.git_commit or 'not a git checkout')}), generated {md(atlas.generated)}, "
        f"{_took(atlas)}.",
        "",
        *([f"> The atlas stopped early — {md(atlas.interrupted)}; {_what_stopped(atlas)}.", ""]
          if atlas.interrupted else []),
        *(md(sentence, None) for sentence in order_sentences(atlas.columns)),
        "",
        "## Verdicts by release",
        "",
        "H holds, D deviates, E error, n/o not observable, – not run, · absent; **bold** = changed from the "
        "previous release (a switch column: from its release).",
        "",
    ]
    head = ["record", *(_code(c.label) for c in atlas.columns)]
    rows = []
    for row in atlas.grid:
        cells = [
            f"**{SHORT.get(v, v)}**" if moved else SHORT.get(v, v)
            for v, moved in zip(row.cells, row.changed, strict=True)
        ]
        rows.append([_code(row.record), *cells])
    lines += _md_table(head, rows)
    lines += ["", "## Releases", ""]
    lines += _md_table(
        [*IDENTITY_HEAD, "report"],
        [
            [
                _code(c.label),
                *(md(v) for v in identity_cells(c)),
                link("report", c.report) if c.report else md(c.error or "no report"),
            ]
            for c in atlas.columns
        ],
    )
    lines += ["", PROTOCOL_NOTE]
    lines += ["", "## Changes per adjacent pair", ""]
    for pair in atlas.pairs:
        lines += [f"### {md(_pair_title(atlas, pair))}", ""]
        status = f"compare: {pair.comparison}" + (f" ({md(pair.note)})" if pair.note else "")
        lines += [
            f"{status}; {len(pair.root_causes)} root cause(s), {len(pair.differences)} difference(s), "
            f"{len(pair.verdict_changes)} verdict change(s), {len(pair.probe_changes)} served change(s)."
            + md(switch_note(atlas, pair), None),
            "",
        ]
        served, behaviour, packaging_served, packaging = _split(pair)
        lines += [f"- served: {md(change, 300)}" for change in served]
        for cause in pair.root_causes:
            headline = md(cut_headline(cause.summary, ATLAS_HEADLINE_CHARS), None)
            lines.append(f"- **{md(', '.join(cause.records or cause.explains) or cause.id)}**: {headline}")
            if cause.origin:
                lines.append(f"  {md(cause.origin, None)}")
            if cause.example:
                lines += ["", "  ```json", *(f"  {line[:600]}" for line in cause.example[:6]), "  ```", ""]
        for change in behaviour:
            lines.append(f"- {md(change.record)}{_under(change)}: {change.a} → {change.b}")
        if packaging or packaging_served:
            lines += ["", f"{PACKAGING_NOTE[0].upper()}{PACKAGING_NOTE[1:]}:", ""]
            lines += [f"- served: {md(change, 300)}" for change in packaging_served]
            lines += [f"- {md(c.record)}{_under(c)}: {c.a} → {c.b}" for c in packaging]
        lines.append("")
    changed = [r for r in atlas.grid if r.first_change or r.switch_changes]
    lines += ["## First release where each record changed", ""]
    lines += (
        _md_table(
            ["record", "first change", "differs under a switch"],
            [
                [md(r.record), md(r.first_change or "—"), md(", ".join(r.switch_changes) or "—")]
                for r in changed
            ],
        )
        if changed
        else ["No record's verdict changes across the atlas."]
    )
    labels, claim_rows = _claim_rows(atlas)
    lines += ["", "## Claim audit across releases", ""]
    lines += _md_table(
        ["claim", *(md(x) for x in labels)],
        [
            [md(claim, 80), *(md(by[x].verdict) if x in by else "—" for x in labels)]
            for claim, by in claim_rows
        ],
    )
    lines += ["", "## Upstream-reported problems, located by release", ""]
    for problem in atlas.upstream:
        lines += _upstream_md(problem)
    return "\n".join(lines) + "\n"


def within_summary(text: str, budget: int = SUMMARY_BYTES) -> str:
    """atlas.md cut at a line to stay under GitHub's job-summary limit (a CI job shows it there), with a
    sentence saying which sections are left out and that atlas.json and index.html hold everything."""
    if len(encoded(text)) <= budget:
        return text
    lines = text.split("\n")
    kept: list[str] = []
    size = _CUT_NOTE_BYTES
    for line in lines:
        size += len(encoded(line)) + 1
        if size > budget:
            break
        kept.append(line)
    left = [line[3:] for line in lines[len(kept):] if line.startswith("## ")]
    fence = ["  ```"] if sum(line.strip().startswith("```") for line in kept) % 2 else []
    sections = f" and the sections {', '.join(left)}" if left else ""
    note = (
        f"> atlas.md ends here, cut to stay under GitHub's 1 MiB job-summary limit: {len(lines) - len(kept)} "
        f"more lines{sections} are left out; atlas.json and index.html beside it hold the whole atlas."
    )
    return "\n".join([*kept, *fence, "", note, ""])


def _upstream_md(problem: UpstreamProblem) -> list[str]:
    seen = (
        f"first seen {md(problem.first_seen)}, last seen {md(problem.last_seen or '')}"
        if problem.first_seen
        else "not seen in any release"
    )
    lines = [f"### {link(problem.id, problem.url)} {md(problem.title)}", "", f"{seen}.", ""]
    lines += _md_table(
        ["release", "shows it", "detail", "evidence"],
        [
            [
                md(loc.column),
                _presence(loc.present),
                md(loc.detail, 200),
                "<br>".join(_code(e) for e in loc.evidence[:4]) or "—",
            ]
            for loc in problem.located
        ],
    )
    return [*lines, ""]


# -- HTML -----------------------------------------------------------------------------------------------


def _table(head: Sequence[Content], rows: Sequence[Sequence[Content]]) -> Markup:
    """A table in its own horizontally scrolling box, so a wide one never widens the page past 1280 px."""
    return tag(
        "div",
        tag(
            "table",
            tag("tr", [tag("th", h) for h in head]),
            [tag("tr", [tag("td", cell) for cell in row]) for row in rows],
        ),
        class_="scroll",
    )


def _identity_cell(index: int, value: str) -> Content:
    """A cell of `identity_cells` sized to its content: moments (published, tree as of) and the protocol
    revision on one line, the lists of dependencies and serverInfo wide enough to read as phrases."""
    name = IDENTITY_HEAD[index + 1]
    if name in ("published", "tree as of"):
        return _when(value)
    if name == "protocol":
        return tag("span", value, class_="when")
    if name in ("other deps", "serverInfo"):
        return tag("span", value, class_="prose")
    return value


def _when(value: str) -> Markup:
    """A timestamp on one line, to the second in UTC (the exact value on hover); other text as it is."""
    today = value.startswith("today (") and value.endswith(")")
    inner = value[len("today ("):-1] if today else value
    try:
        moment = datetime.fromisoformat(inner).astimezone(UTC)
    except ValueError:
        return tag("span", value)
    shown = moment.strftime("%Y-%m-%d %H:%M:%SZ")
    return tag("span", f"today ({shown})" if today else shown, class_="when", title=value)


def _link(href: str | None, text: str) -> Markup:
    return tag("a", text, href=href) if href else tag("span", text, class_="muted")


def _pair_html(atlas: Atlas, pair: Pair) -> Markup:
    parts: list[Content] = [
        tag("h3", _pair_title(atlas, pair)),
        tag(
            "p",
            f"compare: {pair.comparison}"
            + (f" ({pair.note})" if pair.note else "")
            + f"; {len(pair.root_causes)} root cause(s), {len(pair.differences)} difference(s) over "
            f"{pair.calls} calls, {len(pair.verdict_changes)} verdict change(s), "
            f"{len(pair.probe_changes)} served change(s)." + switch_note(atlas, pair),
            class_="muted",
        ),
    ]
    for cause in pair.root_causes:
        parts.append(
            tag(
                "div",
                tag(
                    "p",
                    tag("strong", ", ".join(cause.records or cause.explains) or cause.id),
                    ": ",
                    cause.summary,
                    tag(
                        "span",
                        f" (explains {', '.join(cause.explains)})" if cause.explains else "",
                        class_="muted",
                    ),
                ),
                tag("p", cause.origin) if cause.origin else "",
                tag("pre", "\n".join(cause.example)) if cause.example else "",
            )
        )
    served, behaviour, packaging_served, packaging = _split(pair)
    if served:
        parts.append(tag("ul", [tag("li", "served: ", change) for change in served]))
    if behaviour:
        rows = [[c.record + (f" (with {c.under})" if c.under else ""), c.a, c.b] for c in behaviour]
        parts.append(_table(["record", "before", "after"], rows))
    if packaging or packaging_served:
        parts.append(tag("p", f"{PACKAGING_NOTE[0].upper()}{PACKAGING_NOTE[1:]}:", class_="muted"))
        if packaging_served:
            parts.append(tag("ul", [tag("li", "served: ", change) for change in packaging_served]))
        if packaging:
            parts.append(_table(["record", "before", "after"], [[c.record, c.a, c.b] for c in packaging]))
    return join(parts)


def render_html(atlas: Atlas) -> str:
    labels, claim_rows = _claim_rows(atlas)
    changed = [r for r in atlas.grid if r.first_change or r.switch_changes]
    sections: list[Content] = [
        tag("h1", "Drift atlas"),
        tag(
            "p",
            f"{len(atlas.columns)} columns × {len(atlas.grid)} records; profile {atlas.profile}, seed "
            f"{atlas.seed if atlas.seed is not None else 'random'}; harness {atlas.harness.version} "
            f"({atlas.harness.git_commit or 'not a git checkout'}); generated {atlas.generated}, "
            f"{_took(atlas)}.",
            class_="muted",
        ),
        *([tag("p", f"The atlas stopped early — {atlas.interrupted}; {_what_stopped(atlas)}.")]
          if atlas.interrupted else []),
        tag("p", " ".join(order_sentences(atlas.columns))),
        tag("h2", "Verdicts by release"),
        tag(
            "p",
            "Rows are records, columns releases (grey labels: a release started with a documented "
            "environment switch, named by its initials: +DTL is DISABLE_THOUGHT_LOGGING=true). "
            "An outlined cell changed from the previous release, or, in a switch "
            "column, "
            "from its release. Hover a cell for its verdict.",
        ),
        tag("div", legend_svg(), class_="grid"),
        tag("div", grid_svg(atlas.columns, atlas.grid), class_="grid"),
        tag("h2", "Releases"),
        _table(
            [*IDENTITY_HEAD, "report"],
            [
                [
                    c.label,
                    *(_identity_cell(i, v) for i, v in enumerate(identity_cells(c))),
                    _link(c.report, "report") if c.report else (c.error or "no report"),
                ]
                for c in atlas.columns
            ],
        ),
        tag("p", PROTOCOL_NOTE, class_="muted"),
        tag("h2", "Changes per adjacent pair"),
        [_pair_html(atlas, p) for p in atlas.pairs] or tag("p", "One column: nothing to compare."),
        tag("h2", "First release where each record changed"),
        _table(
            ["record", "first change", "differs under a switch"],
            [[r.record, r.first_change or "—", ", ".join(r.switch_changes) or "—"] for r in changed],
        )
        if changed
        else tag("p", "No record's verdict changes across the atlas."),
        tag("h2", "Claim audit across releases"),
        tag(
            "p",
            "The suite's claim records per release, and the claims later releases add, judged against "
            "what the probe observed: a tool that appends every call to its store is neither read-only nor "
            "idempotent.",
            class_="muted",
        ),
        _table(
            ["claim", *labels],
            [
                [
                    claim,
                    *(
                        tag(
                            "span",
                            by[x].verdict,
                            class_=by[x].verdict.replace(" ", "-"),
                            title=f"declared: {by[x].declared} | observed: {by[x].observed}",
                        )
                        if x in by
                        else "—"
                        for x in labels
                    ),
                ]
                for claim, by in claim_rows
            ],
        ),
        tag("h2", "Upstream-reported problems, located by release"),
        [_upstream_html(p) for p in atlas.upstream],
    ]
    head = tag(
        "head",
        tag("meta", charset="utf-8"),
        tag("meta", http_equiv="Content-Security-Policy", content=_CSP),
        tag("meta", name="viewport", content="width=device-width, initial-scale=1"),
        tag("title", "Drift atlas"),
        tag("style", raw_css(_CSS)),
    )
    return "<!DOCTYPE html>\n" + tag("html", head, tag("body", join(sections, "\n")), lang="en") + "\n"


def _upstream_html(problem: UpstreamProblem) -> Markup:
    seen = (
        f"first seen {problem.first_seen}, last seen {problem.last_seen}"
        if problem.first_seen
        else "not seen in any release"
    )
    return join(
        [
            tag("h3", tag("a", problem.id, href=problem.url), " ", problem.title),
            tag("p", seen, class_="muted"),
            _table(
                ["release", "shows it", "detail", "evidence"],
                [
                    [
                        loc.column,
                        tag("span", _presence(loc.present), class_="yes" if loc.present else "no"),
                        loc.detail,
                        join([tag("code", e) for e in loc.evidence[:4]], Markup("<br>")),
                    ]
                    for loc in problem.located
                ],
            ),
        ]
    )


_STOPPED_RUN = frozenset({cancel.DEADLINE_EXIT, 128 + signal.SIGINT, 128 + signal.SIGTERM})
"""A column run's exit status when the stop ended it (the deadline, SIGINT, SIGTERM: `drivers/cancel.py`)."""


def _what_stopped(atlas: Atlas) -> str:
    """What a stop cut short, read from the atlas: column runs it ended, and the pairs compared before it."""
    stopped_runs = sum(1 for c in atlas.columns if c.exit_code in _STOPPED_RUN)
    compared = sum(1 for p in atlas.pairs if p.comparison == "done")
    runs = f"{stopped_runs} column run(s) were stopped" if stopped_runs else "no column run was stopped"
    pairs = (f"{compared} of {len(atlas.pairs)} pair(s) were compared before it" if compared
             else "no pair was compared")
    return f"{runs}; {pairs}"
