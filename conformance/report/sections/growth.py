"""The store observed growing on one process (RTE-5, ABS-11): pictures in report.html, a table in
report.md."""

from __future__ import annotations

from conformance.core.failure_text import check_name
from conformance.report.markdown_parts import md
from conformance.report.markdown_parts import table as md_table
from conformance.report.markup import Content, Markup, join, tag
from conformance.report.model import Report, StoreGrowth
from conformance.report.sections.section import NOT_SHOWN, Anchor, Detail, NotShown, section
from conformance.report.style import table
from conformance.report.svg import Series, line_chart
from conformance.report.text import growth_rows, is_comparison_only


def view(report: Report) -> tuple[StoreGrowth, ...] | NotShown:
    if is_comparison_only(report) or not report.growth:
        return NOT_SHOWN
    return tuple(report.growth)


def markdown(growths: tuple[StoreGrowth, ...], detail: Detail) -> list[str]:
    return [line for growth in growths for line in _growth_md(growth)]


def _growth_md(growth: StoreGrowth) -> list[str]:
    """The text equivalent of report.html's growth pictures: a sentence and the checkpoints' table."""
    points = growth.points
    lines = ["## Store growth", "", f"{md(', '.join(growth.records))}: {md(check_name(growth.test))}"]
    first, last = points[0], points[-1]
    sentence = (
        f"thoughtHistoryLength went from {first.history_length:,} to {last.history_length:,} over "
        f"{last.calls - first.calls:,} accepted calls"
    )
    if first.rss_bytes is not None and last.rss_bytes is not None:
        sentence += (
            f"; the server's RSS from {first.rss_bytes / 2**20:.1f} to {last.rss_bytes / 2**20:.1f} MiB "
            "(over a few thousand calls the runtime's own warm-up dominates it: the benchmark's memory "
            "section measures the per-call growth over 100,000)"
        )
    lines += ["", sentence + ".", ""]
    header, rows = growth_rows(growth)
    step = max(len(rows) // 10, 1)
    shown = [r for i, r in enumerate(rows) if i % step == 0 or i == len(rows) - 1]
    lines += md_table(header, shown)
    lines.append("")
    return lines


def html(growths: tuple[StoreGrowth, ...]) -> list[Content]:
    return [
        tag("h2", "Store growth", id="growth"),
        tag("p", "The store observed growing on one process, checkpoint by checkpoint (RTE-5, ABS-11: "
            "no cap, eviction or reset)."),
        [_growth_figure(g) for g in growths],
    ]


def _growth_figure(growth: StoreGrowth) -> Markup:
    """History length and server RSS against accepted calls, each with its table of checkpoints."""
    lengths = Series("thoughtHistoryLength", [(p.calls, p.history_length) for p in growth.points])
    rss = Series(
        "server RSS (MiB)",
        [(p.calls, p.rss_bytes / 2**20) for p in growth.points if p.rss_bytes is not None],
        colour="#c5221f",
    )
    parts: list[Content] = [
        tag("p", f"{', '.join(growth.records)} — ", check_name(growth.test)),
        tag("figure", line_chart([lengths], title="thoughtHistoryLength against accepted calls",
                                 x_label="accepted calls", y_label="thoughtHistoryLength"),
            tag("figcaption", "thoughtHistoryLength reported by the server after each checkpoint's call")),
    ]
    if rss.points:
        parts.append(
            tag("figure", line_chart([rss], title="server RSS against accepted calls",
                                     x_label="accepted calls", y_label="RSS (MiB)",
                                     y_format=lambda v: f"{v:.0f}"),
                tag("figcaption", "VmRSS of the server's process group, read from /proc during the run"))
        )
    header, rows = growth_rows(growth)
    parts.append(tag("details", tag("summary", "Checkpoints as a table"),
                     table(header, [list(r) for r in rows], numeric=range(len(header)))))
    return join(parts)


SECTION = section("growth", view, markdown=markdown, html=html, anchor=Anchor("growth", "Store growth"))
