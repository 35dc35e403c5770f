"""What a report section is: the slice of the Report it reads (its view) and how each writer shows it.

A writer calls every section of the list, in order, with the whole Report; a section whose view is
`NOT_SHOWN`, or that has no rendering for that writer, contributes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final, Literal, TypeVar

from conformance.report.escape import safe
from conformance.report.markdown_parts import md
from conformance.report.markup import Content, tag
from conformance.report.model import Report

Detail = Literal[0, 1, 2]
"""How much evidence report.md keeps: 2 all of it, 1 counterexamples without replays, 0 verdict lines."""

DETAIL_LEVELS: Final[tuple[Detail, ...]] = (2, 1, 0)


class NotShown(Enum):
    """The view of a section this report has nothing for (no claims, a comparison-only report, ...)."""

    NOT_SHOWN = "not shown"


NOT_SHOWN: Final = NotShown.NOT_SHOWN


@dataclass(frozen=True)
class Anchor:
    """Where report.html's contents link to: the section's element id and the link's label."""

    id: str
    label: str


@dataclass(frozen=True)
class Section:
    """One section of every human-readable form of a report, over the whole Report.

    `links`, for a section that lists the others (report.html's contents), is called instead of `html`
    once every section is rendered, with the anchors of those report.html shows.
    """

    name: str
    markdown: Callable[[Report, Detail], list[str]]
    html: Callable[[Report], list[Content]]
    terminal: Callable[[Report], list[str]]
    anchor: Anchor | None = None
    links: Callable[[Report, Sequence[Anchor]], list[Content]] | None = None


V = TypeVar("V")


def section(
    name: str,
    view: Callable[[Report], V | NotShown],
    *,
    markdown: Callable[[V, Detail], list[str]] | None = None,
    html: Callable[[V], list[Content]] | None = None,
    terminal: Callable[[V], list[str]] | None = None,
    anchor: Anchor | None = None,
    links: Callable[[V, Sequence[Anchor]], list[Content]] | None = None,
) -> Section:
    """A section from its view and its renderings; a writer it has no rendering for shows nothing of it."""

    def as_markdown(report: Report, detail: Detail) -> list[str]:
        shown = view(report)
        return [] if markdown is None or isinstance(shown, NotShown) else markdown(shown, detail)

    def as_html(report: Report) -> list[Content]:
        shown = view(report)
        return [] if html is None or isinstance(shown, NotShown) else html(shown)

    def as_terminal(report: Report) -> list[str]:
        shown = view(report)
        return [] if terminal is None or isinstance(shown, NotShown) else terminal(shown)

    def as_links(report: Report, anchors: Sequence[Anchor]) -> list[Content]:
        shown = view(report)
        return [] if links is None or isinstance(shown, NotShown) else links(shown, anchors)

    return Section(name, as_markdown, as_html, as_terminal, anchor, None if links is None else as_links)


def notice(name: str, title: str, view: Callable[[Report], V | NotShown],
           said: Callable[[V], str]) -> Section:
    """A section that is one titled sentence in every writer: a fact a reader must know before any verdict
    (an argument mapping, a tool checked under another name)."""

    def markdown(shown: V, detail: Detail) -> list[str]:
        return [f"> **{title}:** {md(said(shown), 1200)}.", ""]

    def html(shown: V) -> list[Content]:
        return [tag("p", tag("strong", f"{title}: "), said(shown), ".", class_="gate")]

    def terminal(shown: V) -> list[str]:
        return [f"  {safe(said(shown), 1200)}"]

    return section(name, view, markdown=markdown, html=html, terminal=terminal)
