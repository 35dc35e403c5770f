"""Escape-by-default HTML: a plain `str` is always escaped; only `Markup` built here passes through.

A server can answer `<script>`; the report writer never concatenates untrusted text into HTML itself.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import Final

from conformance.report.escape import safe


class Markup(str):
    """HTML that was built by `tag`/`join` from escaped parts."""

    __slots__ = ()


Content = Markup | str | int | float | None | Iterable["Content"]

_VOID: Final = frozenset({"meta", "br", "hr", "wbr"})
_URL_ATTRS: Final = frozenset({"href", "src", "xlink-href", "action", "formaction"})
_SCHEME: Final = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_INVISIBLE: Final = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]")


def safe_url(value: str) -> str | None:
    """An address a page may link to: a fragment, a relative path, or http(s). Anything else — a
    `javascript:` or `data:` address, one hidden behind spaces or control characters — is no link."""
    if not value or value != value.strip() or _INVISIBLE.search(value) or value.startswith(("//", "\\")):
        return None
    scheme = _SCHEME.match(value)
    if scheme is not None and scheme.group(1).lower() not in ("http", "https"):
        return None
    return value.replace(" ", "%20")


def escape(value: Content) -> Markup:
    if value is None:
        return Markup("")
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return Markup(html.escape(safe_text(value), quote=True))
    if isinstance(value, bool | int | float):
        return Markup(html.escape(str(value)))
    return Markup("".join(escape(part) for part in value))


def safe_text(value: str) -> str:
    """Keep newlines and tabs (they show in `<pre>`), escape every other control character."""
    return "\n".join("\t".join(safe(cell) for cell in line.split("\t")) for line in value.split("\n"))


def tag(name: str, /, *children: Content, **attrs: str | int | None) -> Markup:
    """`<name attrs>children</name>`: attribute names come from code, values are escaped; class_ → class."""
    parts = [name]
    for key, value in attrs.items():
        if value is None:
            continue
        attr = key.rstrip("_").replace("_", "-")
        text = str(value)
        if attr in _URL_ATTRS:
            checked = safe_url(text)
            if checked is None:
                continue  # never written: the element stays, without the address
            text = checked
        parts.append(f'{attr}="{escape(text)}"')
    opening = f"<{' '.join(parts)}>"
    if name in _VOID:
        return Markup(opening)
    return Markup(f"{opening}{escape(children)}</{name}>")


def join(parts: Iterable[Content], sep: str = "") -> Markup:
    return Markup(escape(sep).join(escape(p) for p in parts))


def raw_css(css: str) -> Markup:
    """A style sheet written in this package (never data) — the one place text is trusted."""
    if "</" in css:
        raise ValueError("style sheet must not close its element")
    return Markup(css)
