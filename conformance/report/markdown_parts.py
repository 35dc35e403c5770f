"""The Markdown building blocks every section of report.md uses: escaped inline text, fences, tables.

Every string from a server or a generator goes through one of these: no HTML, no Markdown markup, no
control bytes survive.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from typing import Final
from urllib.parse import quote

from conformance.report.escape import safe
from conformance.report.markup import safe_text, safe_url

_MD_SPECIAL: Final = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")
_URL_KEPT: Final = "/#:?&=%@+,;~!*'._-"
REPLAY_FRAMES: Final = 14


def md(text: str, limit: int | None = 400) -> str:
    """Inline text: one line, HTML-escaped, Markdown punctuation backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(safe(text, limit), quote=False))


def link(text: str, url: str | None, limit: int | None = 400) -> str:
    """`[text](url)` with the address percent-encoded so nothing in it ends the link or starts markup; an
    address a page should not follow (`safe_url`) leaves the text alone."""
    checked = safe_url(url) if url else None
    if checked is None:
        return md(text, limit)
    return f"[{md(text, limit)}](<{quote(checked, safe=_URL_KEPT)}>)"


def in_html(text: str, limit: int | None = 400) -> str:
    """Text inside our own HTML elements, where Markdown is not parsed: entities only, backticks too."""
    return html.escape(safe(text, limit)).replace("`", "&#96;")


def code_block(text: str, lang: str = "") -> str:
    """A fenced block no content can close: the fence is longer than any backtick run inside."""
    body = safe_text(text)
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{body}\n{fence}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def replay_block(frames: Sequence[str], where: str) -> str:
    """The frames to replay as a fenced block, or where report.json holds them when they are too many."""
    if len(frames) <= REPLAY_FRAMES and sum(map(len, frames)) < 4000:
        return code_block("\n".join(frames), "json")
    return f"{len(frames)} frames: see `report.json` ({where})."
