"""report.md keeps the 60,000 characters docs/reports.md promises and a pull-request comment the 65,536 GitHub
accepts, on the committed reports of real runs and on the same run with no departure explained by a cause
(the fold at report.md's shortest then has nothing to fold: every departure keeps its own block)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.report.json import load_report
from conformance.report.markdown import BUDGET, render_markdown, render_markdown_at
from conformance.report.markdown_parts import md
from conformance.report.model import Report
from conformance.report.pull_request import COMMENT_LIMIT, comment_body
from conformance.report.sections.section import DETAIL_LEVELS

REPORTS = sorted((Path(__file__).resolve().parents[2] / "reports").glob("*/report.json"))


@pytest.mark.parametrize("path", REPORTS, ids=[p.parent.name for p in REPORTS])
def test_committed_reports_keep_their_budgets(path: Path) -> None:
    report = load_report(path)
    assert len(render_markdown(report)) <= BUDGET == 60_000
    assert len(comment_body(report)) <= COMMENT_LIMIT <= 65_536


def _unexplained(report: Report) -> Report:
    records = [rv.model_copy(update={"explained_by": None}) for rv in report.records]
    causes = [c.model_copy(update={"explains": []}) for c in report.root_causes]
    return report.model_copy(update={"records": records, "root_causes": causes})


def test_a_run_whose_departures_no_cause_explains_keeps_the_budget() -> None:
    fork = next(p for p in REPORTS if p.parent.name == "npm-2026.8.31")
    report = _unexplained(load_report(fork))
    assert sum(rv.verdict == "deviates" for rv in report.records) >= 29
    assert len(render_markdown(report)) <= BUDGET


def test_a_fork_departing_from_dozens_of_records_keeps_the_budget_one_line_each() -> None:
    """A real fork departs from 55 records, 27 under no cause (nalyk/sequentialthinking,
    reports/third-party/AUDIT.md): report.md's shortest level was 88,406 characters. Past it, every
    departure is one line, and each is still named."""
    fork = next(p for p in REPORTS if p.parent.name == "npm-2026.8.31")
    report = _unexplained(load_report(fork))
    departing = [rv for rv in report.records if rv.verdict == "deviates"]
    copies = [rv.model_copy(update={"id": f"{rv.id}/x{n}"}) for n in range(2) for rv in departing]
    report = report.model_copy(update={"records": [*report.records, *copies]})
    assert len(render_markdown_at(report, DETAIL_LEVELS[-1])) > BUDGET  # the shortest level does not fit
    text = render_markdown(report)
    assert len(text) <= BUDGET, len(text)
    for rv in [*departing, *copies]:
        assert f"✗ {md(rv.id)}" in text, rv.id
