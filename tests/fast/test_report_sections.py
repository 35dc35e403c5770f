"""Report sections are units: a section added to the list is rendered by report.md, report.html and the
terminal summary with no other edit, in its place, and a section with nothing to show shows nowhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance.report.html import render_html
from conformance.report.json import load_report
from conformance.report.markdown import render_markdown
from conformance.report.markup import Content, tag
from conformance.report.model import Report
from conformance.report.sections import SECTIONS
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, Section, section
from conformance.report.terminal import summary_lines

REPO = Path(__file__).resolve().parents[2]


def _processes(report: Report) -> int | NotShown:
    """A test-only section: how many server processes the run started, shown only when it started some."""
    return report.run.processes_started or NOT_SHOWN


def _markdown(n: int, detail: Detail) -> list[str]:
    return ["## Processes", "", f"{n} server processes started; detail level {detail}.", ""]


def _html(n: int) -> list[Content]:
    return [tag("h2", "Processes", id="processes"), tag("p", f"{n} server processes started")]


def _terminal(n: int) -> list[str]:
    return [f"  {n} server processes started"]


PROCESSES = section(
    "processes", _processes, markdown=_markdown, html=_html, terminal=_terminal,
    anchor=Anchor("processes", "Processes"),
)


def _with(extra: Section, before: str) -> tuple[Section, ...]:
    """The shipped list with `extra` inserted before the section named `before`."""
    at = next(i for i, s in enumerate(SECTIONS) if s.name == before)
    return (*SECTIONS[:at], extra, *SECTIONS[at:])


@pytest.fixture(scope="module")
def report() -> Report:
    loaded = load_report(REPO / "reports" / "npm-0.6.2" / "report.json")
    assert loaded.run.processes_started > 0
    return loaded


def test_the_list_names_each_section_once() -> None:
    names = [s.name for s in SECTIONS]
    assert len(names) == len(set(names))
    anchors = [s.anchor.id for s in SECTIONS if s.anchor is not None]
    assert len(anchors) == len(set(anchors))


def test_a_registered_section_reaches_every_writer_in_its_place(report: Report) -> None:
    sections = _with(PROCESSES, before="identity")
    n = report.run.processes_started

    plain, extended = render_markdown(report), render_markdown(report, sections)
    added = f"## Processes\n\n{n} server processes started; detail level 2.\n\n"
    identity = "<details><summary>Identity</summary>"
    assert extended == plain.replace(identity, added + identity)

    page = render_html(report, sections)
    assert f'<h2 id="processes">Processes</h2>\n<p>{n} server processes started</p>' in page
    assert page.index('<h2 id="processes">') < page.index('<h2 id="identity">')
    contents = page[page.index('<nav class="toc">') : page.index("</nav>")]
    assert contents.index('href="#processes"') < contents.index('href="#identity"')
    assert 'href="#processes"' not in render_html(report)

    plain_lines = summary_lines(report)
    assert summary_lines(report, sections) == [
        *plain_lines[:-2], "", f"  {n} server processes started", *plain_lines[-2:]
    ]


def test_a_section_with_nothing_to_show_is_absent_everywhere(report: Report) -> None:
    idle = report.model_copy(update={"run": report.run.model_copy(update={"processes_started": 0})})
    sections = _with(PROCESSES, before="identity")
    assert render_markdown(idle, sections) == render_markdown(idle)
    assert render_html(idle, sections) == render_html(idle)
    assert summary_lines(idle, sections) == summary_lines(idle)


def test_a_section_without_a_rendering_for_a_writer_is_left_out_by_it(report: Report) -> None:
    markdown_only = section("processes", _processes, markdown=_markdown)
    sections = _with(markdown_only, before="identity")
    assert "## Processes" in render_markdown(report, sections)
    assert render_html(report, sections) == render_html(report)
    assert summary_lines(report, sections) == summary_lines(report)


def test_a_comparison_page_has_the_run_report_s_contents() -> None:
    """A `compare` report links its differences, each root cause and its identity, as a run report does."""
    compared = load_report(REPO / "reports" / "compare-npm-2025.12.18-vs-npm-2026.7.4" / "report.json")
    assert compared.comparison is not None and not compared.records
    page = render_html(compared)
    contents = page[page.index('<nav class="toc">') : page.index("</nav>")]
    links = re.findall(r'href="#([^"]+)"', contents)
    causes = {cause.id for cause in compared.root_causes}
    assert causes and {f"cause-{c}" for c in causes} <= set(links)
    assert links[0] == "differences" and links[-1] == "identity"
    for anchor in links:
        assert f'id="{anchor}"' in page, anchor
