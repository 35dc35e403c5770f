"""The sections of every human-readable report, in the order they appear: report.md, report.html and the
terminal summary each render this list and nothing else.

A new section is one module here (its view of the Report and its renderings, built with `section`) and
its line below.
"""

from __future__ import annotations

from typing import Final

from conformance.report.sections import (
    arguments,
    caveats,
    claims,
    comparison,
    contents,
    departures,
    eras,
    findings,
    gate,
    growth,
    identity,
    interrupted,
    listed_tool,
    not_run,
    preflight,
    records,
    root_causes,
    stdout,
    summary,
    title,
)
from conformance.report.sections.section import Section

SECTIONS: Final[tuple[Section, ...]] = (
    title.SECTION,
    preflight.SECTION,
    listed_tool.SECTION,
    arguments.SECTION,
    stdout.SECTION,
    interrupted.SECTION,
    contents.SECTION,
    summary.SECTION,
    caveats.SECTION,
    root_causes.SECTION,
    departures.SECTION,
    eras.SECTION,
    not_run.SECTION,
    gate.SECTION,
    findings.SECTION,
    comparison.SECTION,
    claims.SECTION,
    growth.SECTION,
    records.SECTION,
    identity.SECTION,
)
