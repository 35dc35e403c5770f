"""The pictures (conformance/report/svg.py) and the growth section: labels never become markup, every
picture says in text what it draws, and report.md carries the text equivalent."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree as ET

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.results import GrowthPoint
from conformance.report.html import render_html
from conformance.report.json import load_report
from conformance.report.markdown import render_markdown
from conformance.report.model import VERDICTS, StoreGrowth
from conformance.report.svg import COLOURS, Series, line_chart, verdict_bar, verdict_grid, verdict_mark
from conformance.report.text import VERDICT_MARK

REPO = Path(__file__).resolve().parent.parent

SVG_NS = "{http://www.w3.org/2000/svg}"
hostile = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["<script>alert(1)</script>", "\"'><svg onload=x>", "</text><foreignObject>", "&amp;"]),
)


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.update(name for name, _ in attrs)


def test_noncharacters_in_labels_keep_the_svg_well_formed() -> None:
    """Regression: a label holding U+FFFE/U+FFFF made the picture invalid XML."""
    svg = verdict_grid(["a\uffff"], ["b\ufffe"], {("a\uffff", "b\ufffe"): "holds"}, title="t")
    assert len(ET.fromstring(svg).findall(f".//{SVG_NS}rect")) == 1


def _parse(svg: str) -> ET.Element:
    """Each picture is well-formed XML on its own (an SVG file could be cut out of the page)."""
    return ET.fromstring(svg)


@given(rows=st.lists(hostile, min_size=1, max_size=5, unique=True),
       columns=st.lists(hostile, min_size=1, max_size=4, unique=True), data=st.data())
def test_grid_labels_stay_text(rows: list[str], columns: list[str], data: st.DataObject) -> None:
    cells = {(r, c): data.draw(st.sampled_from([*VERDICTS, ""])) for r in rows for c in columns}
    svg = verdict_grid(rows, columns, cells, title="grid", row_href=lambda r: f"#rec-{r}")
    parser = _Elements()
    parser.feed(svg)
    assert set(parser.tags) <= {"svg", "title", "text", "rect", "a"}
    assert not any(a.startswith("on") for a in parser.attrs)
    root = ET.fromstring(re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", "", svg))
    rects = root.findall(f".//{SVG_NS}rect")
    assert len(rects) == len(rows) * len(columns)
    filled = {r.get("fill") for r in rects}
    assert filled <= {*COLOURS.values(), "#f1f3f4"}


@given(counts=st.fixed_dictionaries({v: st.integers(min_value=0, max_value=500) for v in VERDICTS}))
def test_verdict_bar_widths_follow_the_counts(counts: dict[str, int]) -> None:
    root = _parse(verdict_bar(counts, VERDICTS, title="verdicts"))
    rects = root.findall(f"{SVG_NS}rect")
    total = sum(counts.values())
    if total == 0:
        assert len(rects) == 1
        return
    widths = {r.findtext(f"{SVG_NS}title"): float(r.get("width", "0")) for r in rects}
    assert set(widths) == {f"{v}: {n}" for v, n in counts.items() if n}
    for verdict, n in counts.items():
        if n:
            assert abs(widths[f"{verdict}: {n}"] - 600 * n / total) <= 0.1


def test_line_chart_draws_every_point_inside_its_box() -> None:
    points = [(0.0, 0.0), (150.0, 150.0), (300.0, 300.0)]
    root = _parse(line_chart([Series("len", points)], title="t", x_label="calls", y_label="length"))
    dots = [(float(c.get("cx", "nan")), float(c.get("cy", "nan"))) for c in root.iter(f"{SVG_NS}circle")]
    assert len(dots) == len(points)
    width, height = (float(v) for v in root.get("viewBox", "").split()[2:])
    assert all(0 <= x <= width and 0 <= y <= height for x, y in dots)
    assert dots[0][1] > dots[1][1] > dots[2][1], "larger values are drawn higher"


def test_marks_need_no_emoji_font() -> None:
    for verdict in VERDICTS:
        root = _parse(verdict_mark(verdict))
        assert root.get("aria-hidden") == "true", "the verdict's name follows the mark"
        assert root.findall(f"{SVG_NS}text") == []
        mark = VERDICT_MARK[verdict]
        assert all(_text_presentation(ch) for ch in mark), f"{mark!r} needs an emoji font"


_EMOJI_DEFAULT = {0x2705, 0x270A, 0x270B, 0x2728, 0x274C, 0x274E, 0x2753, 0x2754, 0x2755, 0x2757, 0x2795,
                  0x2796, 0x2797, 0x27B0, 0x27BF, *range(0x23E9, 0x23F4), *range(0x23F8, 0x23FB)}
"""Code points below the emoji planes that render as emoji by default (✅ ❌ ➖ ⏸ …): the old marks."""


def _text_presentation(ch: str) -> bool:
    return ord(ch) < 0x1F000 and ord(ch) not in _EMOJI_DEFAULT


def test_growth_has_a_picture_in_html_and_its_table_in_markdown() -> None:
    report = load_report(REPO / "reports" / "npm-0.6.2" / "report.json")
    points = [GrowthPoint(calls=n, history_length=n, rss_bytes=50 * 2**20 + 500 * n)
              for n in range(0, 301, 15)]
    growth = StoreGrowth(test="conformance/suite/test_store.py::test_growth_is_unbounded[x]",
                         records=["RTE-5", "ABS-11"], points=points)
    grown = report.model_copy(update={"growth": [growth]})
    page = render_html(grown)
    assert 'id="growth"' in page and 'href="#growth"' in page
    assert page.count('aria-label="thoughtHistoryLength against accepted calls"') == 1
    assert page.count('aria-label="server RSS against accepted calls"') == 1
    text = render_markdown(grown)
    assert "## Store growth" in text
    assert "thoughtHistoryLength went from 0 to 300 over 300 accepted calls" in text
    assert "| 300 | 300 | 50.1 |" in text
    without = report.model_copy(update={"growth": []})
    assert "## Store growth" not in render_markdown(without)
    assert 'id="growth"' not in render_html(without)
