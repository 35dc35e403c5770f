"""report.html's links to the sections it shows (a run report's; a comparison's page is short)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from conformance.report.markup import Content
from conformance.report.model import Report
from conformance.report.sections.section import NOT_SHOWN, Anchor, NotShown, section
from conformance.report.style import toc
from conformance.report.text import is_comparison_only


def view(report: Report) -> Literal["run report"] | NotShown:
    return NOT_SHOWN if is_comparison_only(report) else "run report"


def links(_: str, anchors: Sequence[Anchor]) -> list[Content]:
    return [toc([(a.id, a.label) for a in anchors])]


SECTION = section("contents", view, links=links)
