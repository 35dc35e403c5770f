"""The report's Eras table: each era met, the revision settled on, and the spec records holding, not
applicable and departing there, read from the spec tests' ids; shown only when verdicts may differ by era."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.core.eras import ERA_NAMES
from conformance.report.html import render_html
from conformance.report.json import load_report
from conformance.report.markdown import render_markdown
from conformance.report.model import Report, TestRef
from conformance.report.sections import eras

REPO = Path(__file__).resolve().parents[2]
STATUSES = ("passed", "skipped", "failed")


@pytest.fixture(scope="module")
def shipped() -> Report:
    return load_report(REPO / "reports" / "npm-2026.8.31" / "report.json")


def _judged(report: Report, outcomes: dict[str, dict[str, str]], settled: dict[str, str]) -> Report:
    """`report` whose spec records were each judged in the given eras with the given test statuses."""
    records = []
    for rv in report.records:
        if rv.kind != "spec":
            records.append(rv)
            continue
        tests = [TestRef(nodeid=f"conformance/suite/test_spec_eras.py::t[npm:2026.8.31-{era}]",
                         status=status, examples=1)  # type: ignore[arg-type]
                 for era, status in outcomes.get(rv.id, {}).items()]
        records.append(rv.model_copy(update={"tests": tests}))
    return report.model_copy(update={"records": records, "eras": settled})


outcome_tables = st.dictionaries(
    st.sampled_from([f"SPEC-{n}" for n in range(1, 12)]),
    st.dictionaries(st.sampled_from(ERA_NAMES), st.sampled_from(STATUSES), min_size=1),
)


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(outcome_tables)
def test_each_era_lists_what_holds_is_not_applicable_and_departs_there(
    shipped: Report, outcomes: dict[str, dict[str, str]]
) -> None:
    met = sorted({era for by_era in outcomes.values() for era in by_era}, key=ERA_NAMES.index)
    report = _judged(shipped, outcomes, {era: "2025-11-25" for era in met})
    departing = {era: sorted((r for r, by in outcomes.items() if by.get(era) == "failed"),
                             key=lambda r: int(r.split("-")[1])) for era in met}
    shown = len(met) > 1 or any(departing.values())
    page, text = render_html(report), render_markdown(report)
    assert ('<h2 id="eras">Eras</h2>' in page) == shown == ("## Eras" in text)
    if not shown:
        return
    view = eras.view(report)
    assert not isinstance(view, type(eras.NOT_SHOWN))
    assert [row.era for row in view] == met
    for row in view:
        by_era = {r: by[row.era] for r, by in outcomes.items() if row.era in by}
        assert sorted(row.departing) == sorted(departing[row.era])
        assert len(row.holds) == sum(s == "passed" for s in by_era.values())
        assert len(row.not_applicable) == sum(s == "skipped" for s in by_era.values())
        cells = row.cells()
        assert f"<td>{cells[0]}</td><td>2025-11-25</td>" in page
        assert cells[6] == (", ".join(row.departing) or "-")


def test_one_era_with_nothing_departing_shows_no_table(shipped: Report) -> None:
    outcomes = {"SPEC-1": {"auto": "passed"}, "SPEC-2": {"auto": "skipped"}}
    report = _judged(shipped, outcomes, {"auto": "2025-11-25"})
    assert "## Eras" not in render_markdown(report) and 'id="eras"' not in render_html(report)


def test_a_departure_at_one_era_is_named_in_its_row(shipped: Report) -> None:
    outcomes = {"SPEC-10": {"2025-03-26": "failed", "2025-06-18": "passed"},
                "SPEC-1": {"2025-03-26": "passed"}}
    settled = {"2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18"}
    text = render_markdown(_judged(shipped, outcomes, settled))
    table = text[text.index("## Eras"):text.index("## Gate")]
    assert "| 2025\\-03\\-26 | 2025\\-03\\-26 | \\- | 1 | 0 | 1 | SPEC\\-10 |" in table
    assert "| 2025\\-06\\-18 | 2025\\-06\\-18 | \\- | 1 | 0 | 0 | \\- |" in table


def test_each_row_says_what_its_client_meets(shipped: Report) -> None:
    """report.json `era_meets` (calls/meetings.py `meets`) is the row's third cell, in both writers."""
    outcomes = {"SPEC-1": {"2025-03-26": "passed"}, "SPEC-2": {"2026-07-28": "skipped"}}
    said = "server/discover refused (-32601); serves 2026-07-28 requests the old way"
    report = _judged(shipped, outcomes, {"2025-03-26": "2025-03-26", "2026-07-28": None})
    report = report.model_copy(update={"era_meets": {"2026-07-28": said}})
    assert said in render_html(report)
    row = "| 2026\\-07\\-28 | none agreed | server/discover refused \\(\\-32601\\); serves"
    assert row in render_markdown(report)
