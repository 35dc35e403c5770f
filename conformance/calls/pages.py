"""A tools/list answered with a `nextCursor`, followed as a client follows it, and said in one sentence: the
original lists its one tool on one page and never sends a cursor, so a paged listing and what its later pages
hold are a fork's (RTE-1's check and compare both follow it)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from conformance.core.jsontypes import JSON
from conformance.drivers.wire import Exchange

MAX_PAGES: Final = 5
"""Pages followed at most, the first included: a server handing out a new cursor forever is stopped here."""

_SHOWN_CHARS: Final = 40
DETAIL_PAGED: Final = "paged"
"""compare's detail for a listing one side hands out in pages."""
ONE_PAGE: Final = "one page, with no `nextCursor`"


@dataclass(frozen=True)
class Page:
    """One page of a listing: the cursor it was asked with (None: the first), the tool names it listed
    (None: no `tools` array), its `nextCursor` as sent (None: none) and the words of a refusal."""

    cursor: str | None
    tools: tuple[str, ...] | None
    next_cursor: JSON = None
    refused: str | None = None


def _page(cursor: str | None, exchange: Exchange) -> Page:
    if exchange.error is not None or exchange.result is None:
        error = exchange.error
        words = error.get("message") if isinstance(error, dict) else None
        return Page(cursor, None, refused=str(words) if words is not None else json.dumps(exchange.response))
    tools = exchange.result.get("tools")
    names = tuple(str(t.get("name")) if isinstance(t, dict) else json.dumps(t) for t in tools) \
        if isinstance(tools, list) else None
    return Page(cursor, names, exchange.result.get("nextCursor"))


def follow(first: Exchange, ask: Callable[[dict[str, JSON]], Exchange]) -> tuple[Page, ...]:
    """The first page and every page its `nextCursor` leads to, asked by `ask` (tools/list with these
    params): at most `MAX_PAGES`, stopping at a cursor already followed, one that is no string, or a page
    refused. A listing with no `nextCursor` is one page and asks nothing."""
    pages = [_page(None, first)]
    followed: set[str] = set()
    while len(pages) < MAX_PAGES:
        cursor = pages[-1].next_cursor
        if not isinstance(cursor, str) or cursor in followed or pages[-1].refused is not None:
            break
        followed.add(cursor)
        pages.append(_page(cursor, ask({"cursor": cursor})))
    return tuple(pages)


def _shown(value: JSON) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def _holds(page: Page, first: Page) -> str:
    if page.refused is not None:
        return f"is refused: {_shown(page.refused)}"
    if page.tools is None:
        held = "lists no `tools` array"
    elif not page.tools:
        held = "lists no tools"
    elif page.cursor is not None and page.tools == first.tools:
        held = "lists the first page's tools again"
    else:
        held = f"lists {len(page.tools)} tool(s) ({', '.join(_shown(n) for n in page.tools[:4])})"
    if page.next_cursor is None:
        return f"{held} and no `nextCursor`"
    return f"{held} with `nextCursor` {_shown(page.next_cursor)}"


def pages_said(pages: tuple[Page, ...]) -> str | None:
    """A listing of more than one page, or with a `nextCursor`, in one sentence: each page's cursor and what
    it holds, and why following stopped; None for one page without a cursor, as the original lists."""
    if not pages or (len(pages) == 1 and pages[0].next_cursor is None):
        return None
    first = pages[0]
    said = [f"tools/list answers a paged listing: its first page {_holds(first, first)}"]
    said += [f"the page asked with cursor {_shown(p.cursor)} {_holds(p, first)}" for p in pages[1:]]
    last = pages[-1].next_cursor
    if pages[-1].refused is None and last is not None:
        asked = {p.cursor for p in pages}
        said.append(
            "a cursor already followed, not followed again" if last in asked else
            "a `nextCursor` that is no string, not followed" if not isinstance(last, str) else
            f"not followed past {MAX_PAGES} pages")
    return "; ".join(said)
