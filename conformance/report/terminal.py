"""The summary `run` prints when the report is written: the sections that show on a terminal, then the
gate's sentence last, where a CI log ends."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from conformance.report.escape import safe, write_line
from conformance.report.model import Report
from conformance.report.sections import SECTIONS
from conformance.report.sections.section import Section
from conformance.report.text import carried_sentence, gate_sentence


def summary_lines(report: Report, sections: Sequence[Section] = SECTIONS) -> list[str]:
    """Each section's lines after a blank line; every server string in them is already escaped."""
    lines: list[str] = []
    for section in sections:
        shown = section.terminal(report)
        if shown:
            lines += ["", *shown]
    carried = carried_sentence(report)
    return [*lines, *(["", carried] if carried else []), "",
            safe(gate_sentence(report.gate, report.run.interrupted), 1000)]


def write_summary(report: Report, out: TextIO, sections: Sequence[Section] = SECTIONS) -> None:
    for line in summary_lines(report, sections):
        write_line(line, out)
