"""The records × columns grid as one inline SVG: a colour and a drawn mark per verdict, changes outlined.

No emoji and no script: each verdict is a shape drawn here, each cell carries a `<title>` for hover text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from conformance.atlas.model import Column, GridRow
from conformance.report.markup import Markup, tag
from conformance.report.svg import COLOURS

CELL: Final = 16
GAP: Final = 2
LABEL_W: Final = 92
FILL: Final[dict[str, str]] = {
    **COLOURS,
    "not observable": "#c8cbd0",
    "not run": "#ffffff",
    "absent": "#ffffff",
}
"""The report pages' verdict colours; the two pale verdicts stay light so their drawn mark shows."""


def _mark(verdict: str, x: int, y: int) -> list[Markup]:
    """The shape inside a cell that says its verdict without colour: tick, cross, bang, dash, slash."""
    a, b, m = x + 4, x + CELL - 4, x + CELL // 2
    line: dict[str, str | int] = {"stroke": "#fff", "stroke_width": 2, "stroke_linecap": "round"}
    if verdict == "holds":
        return [tag("polyline", points=f"{a},{y + 8} {m - 1},{y + 12} {b},{y + 4}", fill="none", **line)]
    if verdict == "deviates":
        return [
            tag("line", x1=a, y1=y + 4, x2=b, y2=y + 12, **line),
            tag("line", x1=a, y1=y + 12, x2=b, y2=y + 4, **line),
        ]
    if verdict == "error":
        return [
            tag("line", x1=m, y1=y + 3, x2=m, y2=y + 9, **line),
            tag("circle", cx=m, cy=f"{y + 12.5}", r="1.2", fill="#fff"),
        ]
    if verdict == "not observable":
        return [tag("line", x1=a, y1=y + 8, x2=b, y2=y + 8, stroke="#5f6368", stroke_width=2)]
    if verdict == "not run":
        return [tag("line", x1=a, y1=y + 12, x2=b, y2=y + 4, stroke="#9aa0a6", stroke_width="1.5")]
    return []


def short_label(label: str) -> str:
    """`2025.7.1 +DISABLE_THOUGHT_LOGGING=true` → `2025.7.1 +DTL`: switch names by their initials."""

    def initials(match: re.Match[str]) -> str:
        value = match.group(2)
        return (
            "+" + "".join(p[:1] for p in match.group(1).split("_")) + ("" if value == "true" else f"={value}")
        )

    return re.sub(r"\+([A-Za-z0-9_]+)=(\S*)", initials, label)


def grid_svg(columns: Sequence[Column], rows: Sequence[GridRow]) -> Markup:
    labels = [short_label(c.label) for c in columns]
    longest = max((len(label) for label in labels), default=4)
    head = int(longest * 6.2 * 0.87) + 16
    width = LABEL_W + len(columns) * (CELL + GAP) + int(longest * 6.2 * 0.5) + 16
    height = head + len(rows) * (CELL + GAP) + 4
    parts: list[Markup] = [tag("title", "verdict of each record (rows) in each release (columns)")]
    for i, column in enumerate(columns):
        x = LABEL_W + i * (CELL + GAP) + CELL // 2 + 4
        parts.append(
            tag(
                "text",
                tag("title", column.label),
                labels[i],
                x=x,
                y=head - 6,
                transform=f"rotate(-60 {x} {head - 6})",
                font_size=11,
                fill="#1d1d1f" if column.variant_of is None else "#5f6368",
            )
        )
    for r, row in enumerate(rows):
        y = head + r * (CELL + GAP)
        parts.append(
            tag(
                "text",
                row.record,
                x=LABEL_W - 6,
                y=y + CELL - 4,
                text_anchor="end",
                font_size=11,
                font_family="ui-monospace,monospace",
                fill="#1d1d1f",
            )
        )
        for i, (cell, changed) in enumerate(zip(row.cells, row.changed, strict=True)):
            x = LABEL_W + i * (CELL + GAP)
            title = f"{row.record} in {columns[i].label}: {cell}" + (" (changed)" if changed else "")
            parts.append(
                tag(
                    "g",
                    tag("title", title),
                    tag(
                        "rect",
                        x=x,
                        y=y,
                        width=CELL,
                        height=CELL,
                        rx=2,
                        fill=FILL.get(cell, "#fff"),
                        stroke="#111" if changed else "#dadce0",
                        stroke_width="2.5" if changed else 1,
                        stroke_dasharray="2 2" if cell == "absent" else None,
                    ),
                    _mark(cell, x, y),
                )
            )
    return tag(
        "svg",
        parts,
        xmlns="http://www.w3.org/2000/svg",
        width=width,
        height=height,
        viewBox=f"0 0 {width} {height}",
        role="img",
        aria_label="records by release verdict grid",
    )


def legend_svg() -> Markup:
    items = ["holds", "deviates", "error", "not observable", "not run", "absent"]
    parts: list[Markup] = []
    for i, verdict in enumerate([*items, "changed"]):
        x = i * 132
        cell = "holds" if verdict == "changed" else verdict
        parts += [
            tag(
                "rect",
                x=x,
                y=2,
                width=CELL,
                height=CELL,
                rx=2,
                fill=FILL[cell],
                stroke="#111" if verdict == "changed" else "#dadce0",
                stroke_width="2.5" if verdict == "changed" else 1,
                stroke_dasharray="2 2" if verdict == "absent" else None,
            ),
            *_mark(cell, x, 2),
            tag(
                "text",
                verdict if verdict != "changed" else "changed (outlined)",
                x=x + CELL + 5,
                y=15,
                font_size=12,
                fill="#1d1d1f",
            ),
        ]
    return tag(
        "svg",
        parts,
        xmlns="http://www.w3.org/2000/svg",
        width=132 * 7 + 40,
        height=22,
        viewBox=f"0 0 {132 * 7 + 40} 22",
        role="img",
        aria_label="legend",
    )
