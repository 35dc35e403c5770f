"""The Markdown building blocks every section of report.md uses: escaped inline text, fences, tables.

Every string from a server or a generator goes through one of these: no HTML, no Markdown markup, no
control bytes survive.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final
from urllib.parse import quote

from conformance.report.escape import safe
from conformance.report.markup import safe_text, safe_url

_MD_SPECIAL: Final = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])|(<|&(?=#?\w+;))|^(\s*)>")
_IN_HTML: Final = re.compile(r"<|&(?=[#\w])|`")
_ENTITIES: Final = {"<": "&lt;", "&": "&amp;", "`": "&#96;"}
_URL_KEPT: Final = "/#:?&=%@+,;~!*'._-"
REPLAY_FRAMES: Final = 14


def md(text: str, limit: int | None = 400) -> str:
    """Inline text: one line, Markdown punctuation backslash-escaped; `<` always and `&` where it would start
    an entity as entities (a renderer of the first Markdown honours no backslash before them, so "\\<script>"
    would open an element there); `>` only where it would start a quote: a rule's "`F` > 10 × `G`" reads as
    written in report.md, not "&gt;"."""
    return _MD_SPECIAL.sub(_escaped, safe(text, limit))


def _escaped(found: re.Match[str]) -> str:
    punctuation, entity, indent = found.groups()
    if indent is not None:
        return f"{indent}\\>"
    return _ENTITIES[entity] if entity else "\\" + punctuation


def link(text: str, url: str | None, limit: int | None = 400) -> str:
    """`[text](url)` with the address percent-encoded so nothing in it ends the link or starts markup; an
    address a page should not follow (`safe_url`) leaves the text alone."""
    checked = safe_url(url) if url else None
    if checked is None:
        return md(text, limit)
    return f"[{md(text, limit)}](<{quote(checked, safe=_URL_KEPT)}>)"


def in_html(text: str, limit: int | None = 400) -> str:
    """Text inside our own HTML elements, where Markdown is not parsed: `<`, an `&` that could start a
    character reference and backticks as entities; `>` and quotes, which an element's text never needs
    escaped, as written."""
    return _IN_HTML.sub(lambda found: _ENTITIES[found.group()], safe(text, limit))


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
