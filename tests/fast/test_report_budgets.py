"""report.md keeps the 60,000 characters docs/reports.md promises and a pull-request comment the 65,536 GitHub
accepts, on the committed reports of real runs and on the same run with no departure explained by a cause
(the fold at report.md's shortest then has nothing to fold: every departure keeps its own block)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.report.json import load_report
from conformance.report.markdown import BUDGET, render_markdown, render_markdown_at
from conformance.report.markdown_parts import md
from conformance.report.model import ClaimObservationOut, GateEntry, Report, RootCause
from conformance.report.pull_request import COMMENT_LIMIT, comment_body
from conformance.report.sections import SECTIONS, departures
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


_SPECIALS = "*_[]()#|`<>\\-.!"
"""Characters Markdown escaping doubles: a server's words made of them cost report.md twice their length."""


def _scaled(report: Report, copies: int, causes: int, observations: int, words: str) -> Report:
    """A real run scaled up: each departure `copies` more times (each copy in the gate's "Not in the baseline"
    with its own line), `causes` more root causes over the copies, each claim `observations` more
    observations; the copies' lines and the causes' headlines in `words`."""
    departing = [rv for rv in report.records if rv.verdict in ("deviates", "error")]
    copies_ = [rv.model_copy(update={"id": f"{rv.id}/x{n}", "reason": f"{words} {rv.id} {n}",
                                     "explained_by": None, "evidence": None})
               for n in range(copies) for rv in departing]
    extra = [RootCause(id=f"cause-{n}", records=[c.id], summary=f"{c.id} departs — {words}",
                       explains=[d.id for d in copies_[n + 1::max(causes, 1)]][:40])
             for n, c in enumerate(copies_[:causes])]
    claims = [c.model_copy(update={"observations": [
        *c.observations, *(ClaimObservationOut(verdict="contradicted", observation=f"{words} {n}", test="t")
                           for n in range(observations))]}) for c in report.claims]
    unexpected = [GateEntry(record=rv.id, verdict=rv.verdict, expected="holds", reason=rv.reason)
                  for rv in copies_]
    gate = report.gate.model_copy(update={"unexpected": [*report.gate.unexpected, *unexpected]})
    return report.model_copy(update={"records": [*report.records, *copies_],
                                     "root_causes": [*report.root_causes, *extra],
                                     "claims": claims, "gate": gate})


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    copies=st.integers(0, 14),
    causes=st.integers(0, 80),
    observations=st.integers(0, 30),
    words=st.text(alphabet=st.sampled_from(_SPECIALS + "ab “”⏎"), min_size=1, max_size=400),
    which=st.sampled_from([p.parent.name for p in REPORTS if p.parent.name.startswith("npm-")]),
)
def test_report_md_keeps_its_budget_for_any_number_of_departures_causes_and_claims(
    copies: int, causes: int, observations: int, words: str, which: str
) -> None:
    """Issue 42: report.md ≤ 60,000 and the comment ≤ 65,536 on a fork departing everywhere, every departing
    record still named: the gate's tables, the unexplained departures, the records and the claims are
    squeezed too, not only the departures."""
    report = _scaled(load_report(next(p for p in REPORTS if p.parent.name == which)),
                     copies, causes, observations, words)
    text = render_markdown(report)
    assert len(text) <= BUDGET, len(text)
    assert "report.md stops here" not in text  # squeezed, not cut: every section keeps its heading
    full = render_markdown_at(report, DETAIL_LEVELS[0]).splitlines()
    headings = [line for line in full if line.startswith("## ")]
    assert all(h in text.splitlines() for h in headings)
    assert len(comment_body(report)) <= COMMENT_LIMIT
    for rv in report.records:
        if rv.verdict in ("deviates", "error"):
            assert md(rv.id) in text, rv.id
    if len(render_markdown_at(report, DETAIL_LEVELS[-1])) > BUDGET:
        assert "report.html" in text


def test_a_fork_departing_everywhere_is_squeezed_past_the_departures_alone() -> None:
    """The shape of a real fork (bartoszkula, reports/third-party/AUDIT-round9.md): one line per departure was
    not enough, as the gate's table and the unexplained list repeated each line (63,879 characters). A run
    built the same way is squeezed in every section that repeats, and says where the rest is."""
    fork = next(p for p in REPORTS if p.parent.name == "npm-2026.8.31")
    report = _scaled(_unexplained(load_report(fork)), 6, 10, 20, "x" * 180)
    lines_only = [departures.LINES_ONLY if s is departures.SECTION else s for s in SECTIONS]
    assert len(render_markdown_at(report, DETAIL_LEVELS[-1], lines_only)) > BUDGET
    text = render_markdown(report)
    assert len(text) <= BUDGET
    assert "Each table is one line of record IDs here" in text
    assert "each one's line is under Departures" in text
