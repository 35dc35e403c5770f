"""A tools/list answered with a `nextCursor` is followed as a client follows it, bounded, and RTE-1's check
says the paged listing and what its later pages hold (held-out-multi-17's fork-client-polish: an empty second
page never met)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.pages import MAX_PAGES, Page, follow, pages_said
from conformance.compare.attribution import default_rules
from conformance.compare.engine import _fresh_difference
from conformance.compare.explain import explain
from conformance.compare.fresh import compare_fresh, fresh_side
from conformance.compare.known_changes import default_known_changes
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers.wire import Exchange
from conformance.suite import test_tool_spec
from conformance.suite.contradiction import Contradiction
from conformance.suite.session import ServerSession
from conformance.targets.specs import resolve_target
from tests.servers import fork_session, fork_target


def _listing(result: dict[str, JSON]) -> Exchange:
    return Exchange("tools/list", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                    {"jsonrpc": "2.0", "id": 1, "result": result}, b"", 0.0, 0.0)


@given(cursors=st.lists(st.one_of(st.none(), st.text(max_size=4), st.integers()), min_size=1, max_size=12))
def test_following_is_bounded_and_stops_at_a_cursor_followed(cursors: list[JSON]) -> None:
    """Whatever cursors a server hands out, at most MAX_PAGES pages are asked for, never one cursor twice."""
    handed = iter(cursors[1:])
    asked: list[JSON] = []

    def ask(params: dict[str, JSON]) -> Exchange:
        asked.append(params["cursor"])
        return _listing({"tools": [], "nextCursor": next(handed, None)})

    pages = follow(_listing({"tools": [{"name": "t"}], "nextCursor": cursors[0]}), ask)
    assert len(pages) <= MAX_PAGES and len(asked) == len(pages) - 1
    assert len(set(map(str, asked))) == len(asked) and all(isinstance(c, str) for c in asked)
    assert (pages_said(pages) is None) == (cursors[0] is None)


def test_one_page_without_a_cursor_asks_nothing_and_says_nothing() -> None:
    def ask(params: dict[str, JSON]) -> Exchange:
        raise AssertionError(f"asked {params}")
    assert follow(_listing({"tools": [{"name": "t"}]}), ask) == (Page(None, ("t",)),)


@pytest.fixture(params=["next-cursor", "cursor-loop", "cursor-endless"])
def paged(request: pytest.FixtureRequest) -> Iterator[tuple[str, ServerSession]]:
    with fork_session(request.param) as session:
        yield request.param, session


_SAID = {
    "next-cursor": 'the page asked with cursor "end" lists no tools and no `nextCursor`',
    "cursor-loop": ("lists the first page's tools again with `nextCursor` \"again\"; a cursor already "
                    "followed"),
    "cursor-endless": f"not followed past {MAX_PAGES} pages",
}


def test_rte1s_check_says_the_paged_listing_and_its_later_pages(paged: tuple[str, ServerSession]) -> None:
    mode, server = paged
    with pytest.raises(Contradiction) as raised:
        test_tool_spec.test_tools_list_is_static_and_reaches_a_host(server, None)  # type: ignore[arg-type]
    assert raised.value.record == "RTE-1"
    assert "tools/list answers a paged listing" in str(raised.value)
    assert _SAID[mode] in str(raised.value), raised.value


def test_compare_says_the_paged_listing_under_rte1() -> None:
    """compare follows each side's `nextCursor` on its fresh process and says the pages, a cause apart."""
    base = fresh_side(resolve_target("reference"), 20)
    head = fresh_side(fork_target("next-cursor"), 20)
    found = [item for item in compare_fresh(base, head, TOOL)[0] if item.found.field == "nextCursor"]
    assert len(found) == 1
    difference = _fresh_difference(found[0], default_rules(), "base", "head")
    assert (difference.records, difference.cause) == (["RTE-1"], "paged-listing")
    assert "tools/list hands out its tools in pages" in difference.summary and "on head" in difference.summary
    headline = explain([difference], "base", "head", default_known_changes()).headline
    assert "head's tools/list answers a paged listing" in headline, headline
    assert 'the page asked with cursor "end" lists no tools' in headline, headline
    assert "base lists on one page" in headline, headline
