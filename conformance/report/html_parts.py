"""The HTML building blocks the sections of report.html share: a verdict badge and the report's tables."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from conformance.report.markup import Content, Markup, join, tag
from conformance.report.style import table as styled_table
from conformance.report.svg import verdict_mark


def verdict(v: str, said: str | None = None) -> Markup:
    """A verdict's badge, coloured by the verdict, reading `said` when given (a "not run" record after a
    preflight stop reads "not checked (the run stopped at ...)")."""
    return tag("span", verdict_mark(v), said or v, class_=f"v {v.replace(' ', '-')}")


_BREAKS: Final = re.compile(r"(?<=/)|(?=::)|(?=\[)")
"""Where an identifier may wrap: after a slash, before `::` and before its parameters — never mid-word."""


def identifier(text: str) -> Markup:
    """A test id, path or other name as code that wraps only between its parts, so a narrow column never
    breaks it letter by letter (the table scrolls instead)."""
    parts = [part for part in _BREAKS.split(text) if part]
    return tag("code", join(parts, tag("wbr")), class_="id")


def table(header: Sequence[str], rows: Sequence[Sequence[Content]]) -> Markup:
    """A table of the report: more than four columns make it wide (it scrolls in its own box)."""
    return styled_table(header, rows, wide=len(header) > 4)
