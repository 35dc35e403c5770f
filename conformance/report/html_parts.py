"""The HTML building blocks the sections of report.html share: a verdict badge and the report's tables."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.report.markup import Content, Markup, tag
from conformance.report.style import table as styled_table
from conformance.report.svg import verdict_mark


def verdict(v: str) -> Markup:
    return tag("span", verdict_mark(v), v, class_=f"v {v.replace(' ', '-')}")


def table(header: Sequence[str], rows: Sequence[Sequence[Content]]) -> Markup:
    """A table of the report: more than four columns make it wide (it scrolls in its own box)."""
    return styled_table(header, rows, wide=len(header) > 4)
