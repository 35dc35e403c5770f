"""A check's caveat, how the run judged its record other than the statement reads (ABS-1: a script folder
replaced under the run, its files compared by name and size), is shown beside the record's verdict in
report.md, report.html and the terminal, whatever the verdict: it was kept only in report.json."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.core.results import CAVEAT, TestOutcome
from conformance.report.html import render_html
from conformance.report.markdown import render_markdown
from conformance.report.markdown_parts import md
from conformance.report.terminal import summary_lines
from tests.verdicts import assembled_report

NODE = "conformance/suite/test_store.py::test_fresh_process_remembers_nothing_and_writes_nothing[t]"
_FOLDERS = st.text(alphabet="abcdefghij-_", min_size=1, max_size=12).map(lambda name: f"/srv/{name}/dist")


@settings(max_examples=10, deadline=None)
@given(folder=_FOLDERS, departs=st.booleans())
def test_a_caveat_is_shown_in_every_form_a_reader_meets(folder: str, departs: bool) -> None:
    said = f"{folder}, beside the server's script, was replaced as a whole during the run"
    outcome = TestOutcome(nodeid=NODE, records=["ABS-1"], status="failed" if departs else "passed",
                          message="the server wrote files: ./x.json" if departs else "",
                          notes=[CAVEAT + said])
    report = assembled_report([outcome])
    verdict = next(rv.verdict for rv in report.records if rv.id == "ABS-1")
    shown = f"ABS-1 ({verdict}): {said}"
    assert f"caveat: {shown}" in summary_lines(report)
    assert f"**Caveat.** {md(shown, 600)}" in render_markdown(report)
    assert "<strong>Caveat. </strong>" + shown.replace("'", "&#x27;") in render_html(report)


def test_a_report_without_caveats_says_none() -> None:
    outcome = TestOutcome(nodeid=NODE, records=["ABS-1"], status="passed", notes=["ABS-1: a plain note"])
    report = assembled_report([outcome])
    assert not any("aveat" in line for line in summary_lines(report))
    assert "Caveat" not in render_markdown(report) and "Caveat" not in render_html(report)
