"""The differences between two targets driven in lock-step, grouped under their root causes.

The whole of a `compare` report, and a section of a run with `--against`.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.report.escape import cut_headline, safe
from conformance.report.html_parts import table
from conformance.report.markdown_parts import code_block, md
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, Markup, tag
from conformance.report.model import CauseRow, Comparison, Difference, Report, RootCause
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, section
from conformance.report.text import difference_groups, era_lines, other_tool_lines, where_run_looks


@dataclass(frozen=True)
class Compared:
    comparison: Comparison
    groups: tuple[tuple[RootCause | None, list[Difference]], ...]
    """The differences under their root causes, in report order; those of no cause last."""


def view(report: Report) -> Compared | NotShown:
    if report.comparison is None:
        return NOT_SHOWN
    return Compared(report.comparison, tuple(difference_groups(report)))


def _labels(c: Comparison) -> tuple[str, str]:
    """What the report calls A and B (reports before /3 carry no labels: their specs)."""
    return c.label_a or c.a.spec, c.label_b or c.b.spec


def _row_cells(row: CauseRow) -> list[str]:
    shrunk = "" if row.minimized else " (not fully shrunk)"
    return [row.field, ", ".join(row.value_classes) or "—", row.a, row.b, row.note or "—",
            row.example + shrunk]


def _cause_lines(cause: RootCause) -> list[str]:
    """The sentences under a cause's headline: its records, the upstream change it behaves like, shrinking."""
    said = [f"Root cause `{cause.id}`: records {', '.join(cause.records) or '—'}"
            + (f"; explains {', '.join(cause.explains)}" if cause.explains else "")]
    if cause.upstream:
        said.append(f"Behaves like upstream {', '.join(cause.upstream)}: its recorded signature (fields, "
                    "direction, refusal) matches (fixtures/attribution/upstream_changes.yaml).")
    if cause.origin:
        said.append(cause.origin)
    if cause.not_shrunk:
        said.append(cause.not_shrunk[:1].upper() + cause.not_shrunk[1:] + ".")
    return said


def markdown(compared: Compared, detail: Detail) -> list[str]:
    c = compared.comparison
    la, lb = _labels(c)
    lines = [f"## Differences: {md(la)} (A) vs {md(lb)} (B)", ""]
    lines.append(
        f"{len(c.differences)} difference(s) in {len(compared.groups)} root cause(s); "
        f"{c.programs} programs, {c.calls} calls per side"
        + ("; the search stopped at its budget." if c.budget_reached else ".")
    )
    if c.arguments_map_b:
        lines += ["", f"B's calls were sent through --arguments-map {md(c.arguments_map_b)}: the original's "
                  "argument names respelled as B takes them, every other difference as found."]
    if c.other_tools:
        lines += ["", "Tools only one side lists, or both with other schemas (each called on processes of "
                  "its own, each in a folder made for it, unless --no-call-other-tools is given):", ""]
        lines += [f"- {md(line, 400)}" for line in other_tool_lines(c)]
    lines.append("")
    if c.eras:
        lines += ["Revision settled on, per era's client (a difference some eras only see names them):", ""]
        lines += [f"- {md(line, 400)}" for line in era_lines(c)] + [""]
        lines += [md(where_run_looks(c), None) + ".", ""] if where_run_looks(c) else []
    for cause, members in compared.groups:
        if cause is None:
            lines += ["### Not grouped", ""]
        else:
            lines += [f"### {md(cut_headline(cause.summary, 600), None)}", ""]
            lines += [md(line, 600) + "  " for line in _cause_lines(cause)] + [""]
            if cause.rows:
                header = ["field", "values", md(la, 60), md(lb, 60), "what differs", "smallest call"]
                lines += md_table(header, [[md(cut_headline(cell, 600), None) for cell in _row_cells(r)]
                                           for r in cause.rows])
                lines.append("")
        lines += [f"<details><summary>All {len(members)} difference(s)</summary>", ""]
        for d in members:
            lines += _difference_md(d, detail)
        lines += ["</details>", ""]
    if c.normalized:
        lines += ["<details><summary>Normalized before comparing (SDK-owned)</summary>", ""]
        lines += [f"- {md(n, 400)}" for n in c.normalized]
        lines += ["", "</details>", ""]
    return lines


def _difference_md(d: Difference, detail: Detail) -> list[str]:
    """detail 2: both answers and the replay frames; 1: the frames; 0: the line only."""
    mark = "accepted" if d.accepted else "differs"
    lines = [f"- **{md(d.summary, 300)}** ({mark}; records {md(', '.join(d.records) or '—')}; "
             f"id `{safe(d.id).replace('`', chr(39))}`{'' if d.minimized else '; not fully shrunk'}"
             f"{_origin(d)})"]
    if detail >= 2:
        lines += ["", f"  - A: {md(d.a, 400)}", f"  - B: {md(d.b, 400)}"]
    if detail >= 1 and d.program:
        frames = d.program if sum(map(len, d.program)) < 4000 else [*d.program[:2], "… (see report.json)"]
        lines += ["", "  Replay on a fresh process of each target:", "",
                  "\n".join("  " + line for line in code_block("\n".join(frames), "json").split("\n"))]
    lines.append("")
    return lines


def _origin(d: Difference) -> str:
    """compare --cross: which side's part the crossed target answered like."""
    return {"code": "; from the server's code", "dependencies": "; from the dependencies",
            "unclear": "; code or dependencies unclear"}.get(d.origin, "")


NOT_GROUPED = "not-grouped"


def cause_anchor(cause_id: str) -> str:
    """The id of a root cause's heading, which the page's contents link to."""
    return f"cause-{cause_id}"


def html(compared: Compared) -> list[Content]:
    c = compared.comparison
    la, lb = _labels(c)
    out: list[Content] = [
        tag("h2", "Differences: ", tag("code", la), " (A) vs ", tag("code", lb), " (B)", id="differences"),
        tag("p", f"{len(c.differences)} difference(s); {c.programs} programs, {c.calls} calls per side"
            + ("; the search stopped at its budget." if c.budget_reached else ".")),
    ]
    if c.arguments_map_b:
        out.append(tag("p", f"B's calls were sent through --arguments-map {c.arguments_map_b}."))
    if c.other_tools:
        out += [tag("h4", "Tools only one side lists"),
                tag("ul", [tag("li", line) for line in other_tool_lines(c)])]
    if c.eras:
        out += [tag("h4", "Revision settled on, per era's client"),
                tag("ul", [tag("li", line) for line in era_lines(c)])]
        out += [tag("p", where_run_looks(c), ".")] if where_run_looks(c) else []
    for cause, members in compared.groups:
        if cause is None:
            out.append(tag("h3", "Not grouped", id=NOT_GROUPED))
        else:
            out += [tag("h3", cause.summary, id=cause_anchor(cause.id))]
            out += [tag("p", line) for line in _cause_lines(cause)]
            if cause.rows:
                out.append(table(["field", "values", la, lb, "what differs", "smallest call"],
                                 [list(_row_cells(r)) for r in cause.rows]))
        out.append(tag("details", tag("summary", f"All {len(members)} difference(s)"),
                       [_difference_html(d) for d in members]))
    if c.normalized:
        out += [
            tag("h4", "Normalized before comparing (SDK-owned)"),
            tag("ul", [tag("li", n) for n in c.normalized]),
        ]
    return out


def _difference_html(d: Difference) -> Markup:
    mark = "accepted" if d.accepted else "differs"
    body: list[Content] = [
        table(
            ["", ""],
            [
                ["id", tag("code", d.id)],
                ["aspect", d.aspect],
                ["records", ", ".join(d.records) or "—"],
                *([["eras", f"seen by {', '.join(d.eras)} clients only"]] if d.eras else []),
                ["A", tag("code", d.a)],
                ["B", tag("code", d.b)],
                ["shrunk", "yes" if d.minimized else "no (budget)"],
                *([["code or dependencies", _origin(d).removeprefix("; ")]] if d.origin else []),
            ],
        ),
        tag("h4", "Replay on a fresh process of each target (one frame per line on stdin)"),
        tag("pre", "\n".join(d.program)),
    ]
    summary = tag("summary", tag("span", mark, class_=f"v {'holds' if d.accepted else 'deviates'}"), " ",
                  d.summary)
    return tag("details", summary, body, id=f"diff-{d.id}")


SECTION = section(
    "comparison", view, markdown=markdown, html=html, anchor=Anchor("differences", "Differences")
)
