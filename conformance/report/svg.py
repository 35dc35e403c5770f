"""Inline SVG pictures for the HTML pages: verdict marks, the verdict distribution, line charts, the atlas
grid. No script, no font beyond the system's, every label escaped through `markup.tag`; each picture has a
`<title>` and the pages give a text equivalent beside it (report.md gives the same as text).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from conformance.report.markup import Content, Markup, tag

COLOURS: Final[dict[str, str]] = {
    "holds": "#188038",
    "deviates": "#c5221f",
    "error": "#8e24aa",
    "not observable": "#80868b",
    "not run": "#bdc1c6",
}
"""One colour per verdict, shared by marks, bars and grids (and by the atlas)."""

_NO_CELL: Final = "#f1f3f4"

_GLYPH: Final[dict[str, str]] = {
    "holds": "M4.5 8.3l2.3 2.3 4.7-5",
    "deviates": "M5.2 5.2l5.6 5.6M10.8 5.2l-5.6 5.6",
    "error": "M8 4.2v4.6M8 10.9v.9",
    "not observable": "M4.6 8h6.8",
    "not run": "",
}


def verdict_mark(verdict: str) -> Markup:
    """A 1em mark for a verdict, drawn (no emoji font needed); the verdict's name always follows it."""
    colour = COLOURS.get(verdict, COLOURS["not run"])
    if verdict == "error":
        shape = tag("path", d="M8 1.6L15 14.2H1z", fill=colour)
    elif verdict == "not run":
        shape = tag("circle", cx=8, cy=8, r="6.2", fill="none", stroke=colour, stroke_width="1.8")
    else:
        shape = tag("circle", cx=8, cy=8, r=7, fill=colour)
    glyph = _GLYPH.get(verdict, "")
    stroke = tag(
        "path", d=glyph, fill="none", stroke="#fff", stroke_width="1.9", stroke_linecap="round",
        stroke_linejoin="round",
    ) if glyph else ""
    return tag(
        "svg", shape, stroke, class_="mark", viewBox="0 0 16 16", width=16, height=16,
        aria_hidden="true", focusable="false", xmlns="http://www.w3.org/2000/svg",
    )


def legend(entries: Sequence[tuple[str, str]]) -> Markup:
    """(colour, label) pairs as a wrapping HTML list: the text side of a picture's colours."""
    return tag(
        "ul",
        [tag("li", tag("span", class_="swatch", style=f"background:{c}"), label) for c, label in entries],
        class_="legend",
    )


def verdict_bar(counts: Mapping[str, int], order: Sequence[str], *, title: str) -> Markup:
    """One stacked bar: how many records have each verdict, proportional widths, counts printed inside."""
    total = sum(counts.get(v, 0) for v in order)
    width, height = 600.0, 34.0
    parts: list[Content] = [tag("title", title)]
    x = 0.0
    for verdict in order:
        n = counts.get(verdict, 0)
        if n <= 0 or total <= 0:
            continue
        w = width * n / total
        parts.append(
            tag("rect", tag("title", f"{verdict}: {n}"), x=_n(x), y=0, width=_n(w), height=_n(height),
                fill=COLOURS.get(verdict, _NO_CELL))
        )
        if w >= 26:
            parts.append(
                tag("text", str(n), x=_n(x + w / 2), y=22, text_anchor="middle", font_size=15,
                    font_family="sans-serif", fill="#fff" if verdict != "not run" else "#202124",
                    font_weight="600")
            )
        x += w
    if total <= 0:
        parts.append(tag("rect", x=0, y=0, width=_n(width), height=_n(height), fill=_NO_CELL))
    return tag(
        "svg", parts, viewBox=f"0 0 {_n(width)} {_n(height)}", width=_n(width), height=_n(height),
        role="img", aria_label=title, xmlns="http://www.w3.org/2000/svg", preserveAspectRatio="none",
    )


@dataclass(frozen=True)
class Series:
    """One line of a chart: (x, y) points, a label and a colour."""

    label: str
    points: Sequence[tuple[float, float]]
    colour: str = "#0b57d0"


def line_chart(
    series: Sequence[Series], *, title: str, x_label: str, y_label: str,
    y_format: Callable[[float], str] = lambda v: f"{v:,.0f}",
) -> Markup:
    """A line chart with axes from zero, four ticks each way and a dot per point; empty series are skipped."""
    drawn = [s for s in series if s.points]
    width, height = 600.0, 260.0
    left, right, top, bottom = 64.0, 16.0, 14.0, 44.0
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [x for s in drawn for x, _ in s.points] or [1.0]
    ys = [y for s in drawn for _, y in s.points] or [1.0]
    x_max, y_max = _nice(max(xs)), _nice(max(ys))

    def px(x: float) -> float:
        return left + plot_w * x / x_max

    def py(y: float) -> float:
        return top + plot_h * (1 - y / y_max)

    parts: list[Content] = [tag("title", title)]
    for i in range(5):
        y = y_max * i / 4
        x = x_max * i / 4
        parts += [
            tag("line", x1=_n(left), x2=_n(left + plot_w), y1=_n(py(y)), y2=_n(py(y)), stroke="#e8eaed"),
            tag("text", y_format(y), x=_n(left - 6), y=_n(py(y) + 4), text_anchor="end", font_size=11,
                font_family="sans-serif", fill="#5f6368"),
            tag("text", f"{x:,.0f}", x=_n(px(x)), y=_n(top + plot_h + 16), text_anchor="middle",
                font_size=11, font_family="sans-serif", fill="#5f6368"),
        ]
    parts += [
        tag("line", x1=_n(left), x2=_n(left), y1=_n(top), y2=_n(top + plot_h), stroke="#5f6368"),
        tag("line", x1=_n(left), x2=_n(left + plot_w), y1=_n(top + plot_h), y2=_n(top + plot_h),
            stroke="#5f6368"),
        tag("text", x_label, x=_n(left + plot_w / 2), y=_n(height - 6), text_anchor="middle", font_size=12,
            font_family="sans-serif", fill="#202124"),
        tag("text", y_label, x=12, y=_n(top + plot_h / 2), text_anchor="middle", font_size=12,
            font_family="sans-serif", fill="#202124", transform=f"rotate(-90 12 {_n(top + plot_h / 2)})"),
    ]
    for s in drawn:
        points = " ".join(f"{_n(px(x))},{_n(py(y))}" for x, y in s.points)
        parts.append(tag("polyline", points=points, fill="none", stroke=s.colour, stroke_width=2))
        parts += [tag("circle", cx=_n(px(x)), cy=_n(py(y)), r="2.6", fill=s.colour) for x, y in s.points]
    return tag(
        "svg", parts, viewBox=f"0 0 {_n(width)} {_n(height)}", width=_n(width), height=_n(height),
        role="img", aria_label=title, xmlns="http://www.w3.org/2000/svg",
    )


def verdict_grid(
    rows: Sequence[str], columns: Sequence[str], cells: Mapping[tuple[str, str], str], *, title: str,
    row_href: Callable[[str], str] | None = None,
) -> Markup:
    """The atlas grid: one row per record, one column per target, each cell coloured by its verdict
    (a missing cell is pale grey); row labels link where `row_href` gives an address."""
    cell, gap = 16.0, 2.0
    label_w = 8.0 + 7.2 * max((len(r) for r in rows), default=4)
    longest = max((len(c) for c in columns), default=4)
    head_h = 10.0 + 5.8 * longest
    width = label_w + len(columns) * (cell + gap) + 4 + 3.4 * longest
    height = head_h + len(rows) * (cell + gap) + 4
    parts: list[Content] = [tag("title", title)]
    for j, column in enumerate(columns):
        cx = label_w + j * (cell + gap) + cell / 2
        parts.append(
            tag("text", column, x=_n(cx), y=_n(head_h - 4), font_size=11, font_family="sans-serif",
                fill="#202124", transform=f"rotate(-60 {_n(cx)} {_n(head_h - 4)})")
        )
    for i, row in enumerate(rows):
        y = head_h + i * (cell + gap)
        label = tag("text", row, x=_n(label_w - 6), y=_n(y + cell - 4), text_anchor="end", font_size=11,
                    font_family="ui-monospace,monospace", fill="#0b57d0" if row_href else "#202124")
        parts.append(tag("a", label, href=row_href(row)) if row_href else label)
        for j, column in enumerate(columns):
            verdict = cells.get((row, column))
            parts.append(
                tag(
                    "rect",
                    tag("title", f"{row} on {column}: {verdict or 'no verdict'}"),
                    x=_n(label_w + j * (cell + gap)), y=_n(y), width=_n(cell), height=_n(cell), rx=2,
                    fill=COLOURS.get(verdict, _NO_CELL) if verdict else _NO_CELL,
                )
            )
    return tag(
        "svg", parts, viewBox=f"0 0 {_n(width)} {_n(height)}", width=_n(width), height=_n(height),
        role="img", aria_label=title, xmlns="http://www.w3.org/2000/svg",
    )


def _nice(value: float) -> float:
    """The smallest 1, 2, 2.5 or 5 × 10^k at or above `value`: round axis ends."""
    if value <= 0:
        return 1.0
    magnitude = 10 ** (len(str(int(value))) - 1) if value >= 1 else 1
    for step in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if step * magnitude >= value:
            return float(step * magnitude)
    return float(10 * magnitude)


def _n(value: float) -> str:
    """A coordinate with at most one decimal: small, stable files."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text
