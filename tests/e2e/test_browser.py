"""The pages in a real browser: Debian's Chromium, driven by playwright (never its own browser download).

Opens the committed reports, the committed atlas and comparison as today's writers render them, a report
freshly written from a hostile server, and a page of every picture, at 1280 px and at a phone's 390 px: no
horizontal overflow, no console error, every in-page link resolves, and the CSP keeps a script injected
into a page from running. Screenshots go to $CONFORMANCE_SCREENSHOTS
(else a temporary folder). Skipped only where Chromium is absent — and never when
CONFORMANCE_REQUIRE_BROWSER is set, as .ci/run does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance.atlas.write import load_atlas
from conformance.atlas.write import render_html as render_atlas_html
from conformance.core.results import GrowthPoint
from conformance.report.html import render_html
from conformance.report.json import load_report
from conformance.report.markup import tag
from conformance.report.model import VERDICTS, StoreGrowth
from conformance.report.style import page
from conformance.report.svg import COLOURS, legend, verdict_bar, verdict_grid
from tests.cli import Ran

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("CONFORMANCE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORTS = {"desktop": (1280, 900), "phone": (390, 844)}
COMMITTED = ["npm-0.6.2", "npm-2026.8.31"]
INJECTED = "<script>document.title='pwned';window.pwned=1</script><img src=x onerror=\"window.pwned=2\">"


def _unavailable(reason: str) -> None:
    if os.environ.get("CONFORMANCE_REQUIRE_BROWSER"):
        pytest.fail(f"{reason}, and CONFORMANCE_REQUIRE_BROWSER is set")
    pytest.skip(reason, allow_module_level=True)


if not CHROMIUM.exists():
    _unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
try:
    from playwright.sync_api import Browser, ConsoleMessage, Page, sync_playwright
except ImportError:
    _unavailable("the playwright package is not installed (pip install -e '.[dev]')")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get("CONFORMANCE_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def hostile_report(hostile_gate: Ran) -> Path:
    """A report written by a real run against a server whose every string is `<script>alert(1)</script>`
    (the session's run, tests/e2e/conftest.py)."""
    assert hostile_gate.code == 1, hostile_gate.stdout + hostile_gate.stderr
    return hostile_gate.out / "report.html"


@pytest.fixture(scope="module")
def pictures_page(hostile_report: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every picture on one page: the hostile report given the benchmark's measured growth of npm:0.6.2
    (a real run's figures), and the atlas grid over the two committed reports."""
    bench = json.loads((REPO / "reports" / "benchmarks" / "benchmarks.json").read_text(encoding="utf-8"))
    measured = next(t for t in bench["memory"]["targets"] if t["target"] == "npm:0.6.2")
    points = [GrowthPoint(calls=0, history_length=0, rss_bytes=measured["baseline_rss"])] + [
        GrowthPoint(calls=c["calls"], history_length=c["thought_history_length"], rss_bytes=c["server_rss"])
        for c in measured["checkpoints"]
    ]
    report = load_report(hostile_report.with_name("report.json"))
    growth = StoreGrowth(test="benchmarks/memory.py (npm:0.6.2)", records=["RTE-5", "ABS-11"], points=points)
    folder = tmp_path_factory.mktemp("pictures")
    with_growth = folder / "with-growth.html"
    with_growth.write_text(render_html(report.model_copy(update={"growth": [growth]})), encoding="utf-8")

    reports = {name: load_report(REPO / "reports" / name / "report.json") for name in COMMITTED}
    records = [r.id for r in reports[COMMITTED[0]].records]
    cells = {(r.id, name): r.verdict for name, rep in reports.items() for r in rep.records}
    grid = folder / "grid.html"
    grid.write_text(
        page(
            "Atlas grid",
            [
                tag("h1", "Atlas grid"),
                tag("figure", verdict_grid(records, COMMITTED, cells, title="verdicts per record and release",
                                           row_href=lambda rec: f"#r-{rec}")),
                legend([(COLOURS[v], v) for v in VERDICTS]),
                tag("figure", verdict_bar(reports[COMMITTED[1]].summary.counts, VERDICTS, title="verdicts")),
                tag("ul", [tag("li", r, id=f"r-{r}") for r in records]),
            ],
        ),
        encoding="utf-8",
    )
    _write_atlas_and_compare(folder)
    return with_growth


@dataclass
class Visit:
    """What a browser saw while a page was open."""

    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


def _open(browser: Browser, path: Path, viewport: str) -> tuple[Page, Visit]:
    width, height = VIEWPORTS[viewport]
    pg = browser.new_page(viewport={"width": width, "height": height})
    visit = Visit()

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            visit.console_errors.append(message.text)

    pg.on("console", on_console)
    pg.on("pageerror", lambda error: visit.console_errors.append(str(error)))
    pg.on("dialog", lambda dialog: (visit.dialogs.append(dialog.message), dialog.dismiss()))
    pg.goto(path.resolve().as_uri(), wait_until="load")
    return pg, visit


def _pages(hostile_report: Path, pictures_page: Path) -> dict[str, Path]:
    pages = {name: REPO / "reports" / name / "report.html" for name in COMMITTED}
    pages["hostile"] = hostile_report
    pages["pictures"] = pictures_page
    pages["grid"] = pictures_page.with_name("grid.html")
    pages["atlas"] = pictures_page.with_name("atlas.html")
    pages["compare"] = pictures_page.with_name("compare.html")
    return pages


def _write_atlas_and_compare(folder: Path) -> None:
    """The committed atlas and compare report, rendered by today's writers (their pages' layout and links)."""
    atlas = load_atlas(REPO / "reports" / "atlas" / "atlas.json")
    (folder / "atlas.html").write_text(render_atlas_html(atlas), encoding="utf-8")
    compared = load_report(REPO / "reports" / "compare-npm-2025.12.18-vs-npm-2026.7.4" / "report.json")
    (folder / "compare.html").write_text(render_html(compared), encoding="utf-8")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("which", [*COMMITTED, "hostile", "pictures", "grid", "atlas", "compare"])
def test_page_reads_well(
    browser: Browser, hostile_report: Path, pictures_page: Path, shots: Path, which: str, viewport: str
) -> None:
    path = _pages(hostile_report, pictures_page)[which]
    pg, visit = _open(browser, path, viewport)
    try:
        widths: list[int] = pg.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        broken: list[str] = pg.evaluate(
            """Array.from(document.querySelectorAll('a[href^="#"]'))
                 .map(a => a.getAttribute('href').slice(1))
                 .filter(id => !document.getElementById(decodeURIComponent(id)))"""
        )
        scripts: int = pg.evaluate("document.querySelectorAll('script').length")
        marks: int = pg.evaluate("document.querySelectorAll('svg.mark').length")
        pg.screenshot(path=str(shots / f"{which}-{viewport}.png"))
    finally:
        pg.close()
    assert widths[0] <= widths[1], f"{which} overflows at {viewport}: scrollWidth {widths[0]} > {widths[1]}"
    assert broken == [], f"in-page links with no target: {broken[:10]}"
    assert visit.console_errors == []
    assert visit.dialogs == []
    assert scripts == 0
    if which not in ("grid", "atlas", "compare"):
        assert marks >= len(VERDICTS), "verdict marks are drawn, not emoji"


BROKEN_WORDS = r"""() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const broken = [];
  const data = 'pre, .data, code:not(.id), svg';
  const check = (root, where) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest(data)) continue;
      for (const word of node.data.matchAll(/[\p{L}\p{N}_]+/gu)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0)
                                   .map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(`${where} ${root.tagName.toLowerCase()}: ${word[0]}`);
      }
    }
  };
  document.querySelectorAll('td, th').forEach(cell => check(cell, 'cell'));
  document.querySelectorAll('a').forEach(link => check(link, 'link'));
  return broken;
}"""
"""Every word of a table cell or a link that the browser laid out over more than one line, every <details>
opened. Data (frames, messages, answers: `pre`, `.data`, `code` other than ids) may wrap anywhere; names,
test ids, timestamps and link texts may not."""


@pytest.fixture(scope="module")
def todays_pages(pictures_page: Path) -> dict[str, Path]:
    """The committed reports as today's writers render them, beside the pages `_pages` already renders."""
    folder = pictures_page.parent
    pages = {}
    for name in COMMITTED:
        path = folder / f"{name}-today.html"
        path.write_text(render_html(load_report(REPO / "reports" / name / "report.json")), encoding="utf-8")
        pages[name] = path
    return {**pages, "atlas": folder / "atlas.html", "compare": folder / "compare.html"}


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("which", [*COMMITTED, "atlas", "compare"])
def test_no_cell_or_link_breaks_a_word(
    browser: Browser, todays_pages: dict[str, Path], shots: Path, which: str, viewport: str
) -> None:
    """Columns are sized to their content: a test id, a timestamp or a link's text is never broken mid-word
    (the table scrolls in its own box instead), at 1280 px and on a phone."""
    pg, _ = _open(browser, todays_pages[which], viewport)
    try:
        broken: list[str] = pg.evaluate(BROKEN_WORDS)
        pg.screenshot(path=str(shots / f"{which}-opened-{viewport}.png"))
    finally:
        pg.close()
    assert broken == [], f"{len(broken)} words broken over lines in {which} at {viewport}: {broken[:12]}"


def test_csp_keeps_an_injected_script_from_running(
    browser: Browser, hostile_report: Path, tmp_path: Path, shots: Path
) -> None:
    """Were a writer ever to let markup through, the page's CSP still runs no script and no handler."""
    page_text = hostile_report.read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in page_text
    broken = tmp_path / "injected.html"
    broken.write_text(page_text.replace("<body>", "<body>" + INJECTED, 1), encoding="utf-8")
    pg, visit = _open(browser, broken, "desktop")
    try:
        title: str = pg.title()
        pwned: Any = pg.evaluate("window.pwned")
        scripts: int = pg.evaluate("document.querySelectorAll('script').length")
    finally:
        pg.close()
    assert scripts == 1, "the injected script is in the page, so the test tests the CSP"
    assert title != "pwned" and pwned is None
    assert any("Content Security Policy" in e for e in visit.console_errors), visit.console_errors
