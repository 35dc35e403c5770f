"""Exactly what was run and by what: the target, the server's own account, the harness, the rerun command."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.report.html_parts import table
from conformance.report.markdown_parts import code_block, md
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, tag
from conformance.report.model import Report
from conformance.report.sections.section import Anchor, Detail, section
from conformance.report.text import identity_rows, is_comparison_only


@dataclass(frozen=True)
class Identity:
    rows: tuple[tuple[str, str], ...]
    second: tuple[str, ...] | None
    """A comparison-only report's B command line (its rows name A); None for a run report."""


def view(report: Report) -> Identity:
    c = report.comparison
    second = tuple(c.b.command) if is_comparison_only(report) and c is not None else None
    return Identity(tuple(identity_rows(report)), second)


def markdown(identity: Identity, detail: Detail) -> list[str]:
    lines = ["<details><summary>Identity</summary>", ""]
    lines += md_table(["", ""], [[md(k), md(v, 600)] for k, v in identity.rows if k != "rerun"])
    rerun = dict(identity.rows).get("rerun")
    if rerun:  # a command pastes as it is only outside a table's escaping
        lines += ["", "Rerun (the same examples):", "", code_block(rerun, "sh")]
    if identity.second is not None:
        lines += ["", f"B: {md(' '.join(identity.second), 600)}"]
    return [*lines, "", "</details>", ""]


def html(identity: Identity) -> list[Content]:
    heading = tag("h2", "Identity", id="identity")
    return [heading, table(["", ""], [[k, tag("code", v)] for k, v in identity.rows])]


SECTION = section("identity", view, markdown=markdown, html=html, anchor=Anchor("identity", "Identity"))
