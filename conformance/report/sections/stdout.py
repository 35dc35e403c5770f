"""Stdout hygiene, said first among the findings: every line the target wrote on stdout that is not JSON-RPC
(a stdio client reports each as an error, CMP-4), with its text and when it came, and the answers dropped as
late because such a line came before them. report.json has them in `stdout_hygiene`."""

from __future__ import annotations

from conformance.report.escape import safe
from conformance.report.html_parts import table
from conformance.report.markdown_parts import md
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, tag
from conformance.report.model import Report, StdoutHygiene, StrayLine
from conformance.report.sections.section import NOT_SHOWN, Detail, NotShown, section
from conformance.report.text import is_comparison_only

TERMINAL_LINES = 5


def view(report: Report) -> StdoutHygiene | NotShown:
    if is_comparison_only(report) or report.stdout_hygiene is None:
        return NOT_SHOWN
    return report.stdout_hygiene


def headline(h: StdoutHygiene) -> str:
    lines = f"{h.lines_seen} line{'s' if h.lines_seen != 1 else ''}"
    said = f"stdout carried {lines} that {'are' if h.lines_seen != 1 else 'is'} not JSON-RPC"
    if not h.lines_seen:
        said = "stdout carried no line that is not JSON-RPC in the transcripts"
    scanned = "" if h.scanned_all else " (a transcript too long to scan whole: at least this many)"
    return (f"{said}{scanned}; a stdio client reports each as an error "
            f"(CMP-4: nothing else is written to stdout)")


def when(line: StrayLine) -> str:
    parts = [line.phase]
    if line.after_s is not None:
        parts.append(f"{line.after_s:.2f} s after its process started")
    if line.after_request is not None:
        parts.append(f"after {line.after_request} was sent")
    return ", ".join(parts)


def late(h: StdoutHygiene) -> str:
    n = len(h.late_answers_dropped)
    phases: dict[str, list[str]] = {}
    for said in h.late_answers_dropped:
        phase, _, request = said.rpartition(": request ")
        phases.setdefault(phase or said, []).append(request)
    where = "; ".join(f"{phase}: request{'s' if len(ids) > 1 else ''} {', '.join(ids)}"
                      for phase, ids in phases.items())
    return (f"{n} answer{'s' if n != 1 else ''} dropped as late, because a stray line came before "
            f"{'them' if n != 1 else 'it'} and failed the request ({where})")


def markdown(h: StdoutHygiene, detail: Detail) -> list[str]:
    out = [f"**Stdout hygiene.** {md(headline(h), 600)}.", ""]
    if h.lines:
        rows = [[md(line.text, 200), md(when(line), 300), md(line.transcript, 120)]
                for line in h.lines]
        out += [*md_table(["line", "when", "transcript"], rows), ""]
    if h.late_answers_dropped:
        out += [f"{md(late(h), 1200)}.", ""]
    return out


def html(h: StdoutHygiene) -> list[Content]:
    parts: list[Content] = [tag("p", tag("strong", "Stdout hygiene. "), headline(h), ".", class_="gate fail")]
    if h.lines:
        rows: list[list[Content]] = [[tag("code", line.text), when(line), line.transcript]
                                     for line in h.lines]
        parts.append(table(["line", "when", "transcript"], rows))
    if h.late_answers_dropped:
        parts.append(tag("p", late(h), "."))
    return parts


def terminal(h: StdoutHygiene) -> list[str]:
    out = [f"  {safe(headline(h), 300)}:"]
    out += [f"    {safe(repr(line.text), 120)} — {safe(when(line), 160)}"
            for line in h.lines[:TERMINAL_LINES]]
    if len(h.lines) > TERMINAL_LINES or h.lines_seen > len(h.lines):
        out.append(f"    … {h.lines_seen - TERMINAL_LINES} more (report.md lists {len(h.lines)})")
    if h.late_answers_dropped:
        out.append(f"  {safe(late(h), 400)}")
    return out


SECTION = section("stdout hygiene", view, markdown=markdown, html=html, terminal=terminal)
