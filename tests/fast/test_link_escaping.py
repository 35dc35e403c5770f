"""Addresses read from files (a column's report path, an upstream problem's url) become links in atlas.md
and index.html: whatever they hold, a Markdown link stays one link on one line, and no page is given an
address with a scheme other than http(s)."""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from conformance.atlas.write import load_atlas, render_html, render_markdown
from conformance.report.markdown_parts import link
from conformance.report.markup import safe_url, tag
from tests.cli import REPO

ATLAS = load_atlas(REPO / "reports" / "atlas" / "atlas.json")
HOSTILE = [
    "javascript:alert(1)",
    " javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "\x01javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:x",
    "//evil.example/x",
    "x)\n# injected heading",
    "report.html\x1b[31m\u202e",
    "a](javascript:alert(1)) [b",
    "<script>",
]
urls = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(max_size=30),
    st.builds(lambda a, b: a + b, st.sampled_from([*HOSTILE, "", "targets/x/"]), st.text(max_size=10)),
)
HREF = re.compile(r'href="([^"]*)"')


def followed_scheme(href: str) -> str | None:
    """The scheme a browser would see: entities decoded, ASCII whitespace and controls removed."""
    cleaned = re.sub(r"[\x00-\x20]", "", html.unescape(href))
    found = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", cleaned)
    return found.group(1).lower() if found else None


@given(url=urls)
def test_no_written_href_has_a_scheme_but_http(url: str) -> None:
    page = tag("a", "report", href=url)
    for href in HREF.findall(page):
        assert followed_scheme(href) in (None, "http", "https"), page
    if safe_url(url) is None:
        assert "href" not in page


@given(text=st.text(max_size=20), url=urls)
def test_a_markdown_link_is_one_link_on_one_line(text: str, url: str) -> None:
    written = link(text, url)
    assert "\n" not in written and "\r" not in written
    assert not re.search(r"[\x00-\x1f\x7f\u202e]", written)
    destination = re.fullmatch(r"\[.*\]\(<([^<>\s]*)>\)", written, flags=re.S)
    if destination is None:
        assert "](" not in written.replace("\\]\\(", ""), written
    else:
        assert followed_scheme(destination.group(1)) in (None, "http", "https"), written


def test_hostile_addresses_in_an_atlas_are_escaped_in_both_pages() -> None:
    columns = [
        c.model_copy(update={"report": HOSTILE[i % len(HOSTILE)]}) for i, c in enumerate(ATLAS.columns)
    ]
    upstream = [u.model_copy(update={"url": "javascript:alert(1)"}) for u in ATLAS.upstream]
    atlas = ATLAS.model_copy(update={"columns": columns, "upstream": upstream})
    markdown = render_markdown(atlas)
    assert "\n# injected heading" not in markdown
    destinations = re.findall(r"\]\(<([^<>]*)>\)", markdown)
    assert destinations and all(followed_scheme(d) in (None, "http", "https") for d in destinations)
    assert "](javascript" not in markdown.lower()
    assert "\x1b" not in markdown and "\u202e" not in markdown
    page = render_html(atlas)
    hrefs = HREF.findall(page)
    assert hrefs, "the page still links what is safe to link"
    assert all(followed_scheme(h) in (None, "http", "https") for h in hrefs)
