"""What a check noted about how the run judged its record other than the statement reads (`CAVEAT` notes: an
install replaced under the run, whose files ABS-1 then compared by name and size), beside the record's
verdict in every form a reader meets: a note kept only in report.json was never read."""

from __future__ import annotations

from conformance.core.results import CAVEAT
from conformance.report.markdown_parts import md
from conformance.report.markup import Content, tag
from conformance.report.model import Report
from conformance.report.sections.section import NOT_SHOWN, Detail, NotShown, section

Caveat = tuple[str, str, str]
"""A record's ID, its verdict, and one caveat its checks noted."""


def view(report: Report) -> list[Caveat] | NotShown:
    found: list[Caveat] = [(rv.id, str(rv.verdict), note.removeprefix(CAVEAT))
             for rv in report.records
             for note in dict.fromkeys(n for t in rv.tests for n in t.notes if n.startswith(CAVEAT))]
    return found or NOT_SHOWN


def _said(caveat: Caveat) -> str:
    record, verdict, note = caveat
    return f"{record} ({verdict}): {note}"


def markdown(caveats: list[Caveat], detail: Detail) -> list[str]:
    return [*(f"> **Caveat.** {md(_said(c), 600)}" for c in caveats), ""]


def html(caveats: list[Caveat]) -> list[Content]:
    return [tag("p", tag("strong", "Caveat. "), _said(c)) for c in caveats]


def terminal(caveats: list[Caveat]) -> list[str]:
    return [f"caveat: {_said(c)}" for c in caveats]


SECTION = section("caveats", view, markdown=markdown, html=html, terminal=terminal)
