"""The specification's records era by era: each era's client the run met the target as, the revision it
settled on, and the spec records holding, not applicable and departing there (the test ids name the era).
Shown when verdicts may differ by era: more than one era met, or a spec record departing."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.core.eras import ERA_NAMES, era_of_test
from conformance.report.markdown_parts import md
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, tag
from conformance.report.model import Report
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, section
from conformance.report.style import table
from conformance.report.text import is_comparison_only

HEADER = ("era (client)", "settled on", "the client meets", "holds", "not applicable", "departs",
          "departing records")


@dataclass(frozen=True)
class EraRow:
    era: str
    settled: str | None
    meets: str
    holds: tuple[str, ...]
    not_applicable: tuple[str, ...]
    departing: tuple[str, ...]

    def cells(self) -> list[str]:
        return [self.era, self.settled or "none agreed", self.meets or "-", str(len(self.holds)),
                str(len(self.not_applicable)),
                str(len(self.departing)), ", ".join(self.departing) or "-"]


def view(report: Report) -> tuple[EraRow, ...] | NotShown:
    spec = [rv for rv in report.records if rv.kind == "spec"]
    if is_comparison_only(report) or not spec:
        return NOT_SHOWN
    judged: dict[str, dict[str, str]] = {era: {} for era in report.eras}
    for rv in spec:
        for test in rv.tests:
            era = era_of_test(test.nodeid)
            if era is not None:
                judged.setdefault(era, {})[rv.id] = test.status
    rows = tuple(
        EraRow(
            era, report.eras.get(era), report.era_meets.get(era, ""),
            tuple(r for r, status in verdicts.items() if status == "passed"),
            tuple(r for r, status in verdicts.items() if status == "skipped"),
            tuple(r for r, status in verdicts.items() if status in ("failed", "error")),
        )
        for era, verdicts in sorted(judged.items(), key=lambda item: _order(item[0]))
    )
    if len(rows) < 2 and not any(row.departing for row in rows):
        return NOT_SHOWN
    return rows


def _order(era: str) -> int:
    return ERA_NAMES.index(era) if era in ERA_NAMES else len(ERA_NAMES)


INTRO = ("The specification's records judged with each era's client (`run --era`): the revision the target "
         "settled on with it, what that client meets (for a 2026-07-28 client that settled on none, what the "
         "server does with its requests), and the records holding, not applicable (a revision it did not "
         "settle on) and departing there.")


def markdown(rows: tuple[EraRow, ...], detail: Detail) -> list[str]:
    lines = ["## Eras", "", INTRO, ""]
    lines += md_table(HEADER, [[md(cell) for cell in row.cells()] for row in rows])
    return [*lines, ""]


def html(rows: tuple[EraRow, ...]) -> list[Content]:
    return [
        tag("h2", "Eras", id="eras"),
        tag("p", INTRO.replace("`", "")),
        table(HEADER, [row.cells() for row in rows], numeric=(3, 4, 5)),
    ]


SECTION = section("eras", view, markdown=markdown, html=html, anchor=Anchor("eras", "Eras"))
