"""report.html: one self-contained file for a reviewer — no scripts, no external resources.

Built only from `markup.tag`, which escapes every string it is given: server text can never become markup.
The sections and their order are `sections.SECTIONS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from conformance.core.create import create_file
from conformance.report.markup import Content, join
from conformance.report.model import Report
from conformance.report.sections import SECTIONS
from conformance.report.sections.section import Section
from conformance.report.style import page


def render_html(report: Report, sections: Sequence[Section] = SECTIONS) -> str:
    rendered = [section.html(report) for section in sections]
    anchors = [s.anchor for s, parts in zip(sections, rendered, strict=True) if s.anchor and parts]
    body: list[Content] = []
    for section, parts in zip(sections, rendered, strict=True):
        body += parts if section.links is None else section.links(report, anchors)
    return page(f"Conformance report: {report.target.spec}", join(body, "\n"))


def write_html(report: Report, path: Path) -> None:
    create_file(path, render_html(report), replace=True)
