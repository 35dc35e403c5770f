"""The links of a written report that point nowhere: relative links in report.md, report.html and the atlas's
index.html, and the transcript paths they name as code (`transcripts/x.jsonl`, the way the records section
points to them), each resolved against the report's own folder, must name a file or folder that exists.

Shared by both tiers: tests/fast/test_report_links.py checks the checker, tests/e2e/conftest.py runs it over
every report an end-to-end test writes.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlsplit

REPORT_PAGES: Final = ("report.md", "report.html", "index.html")
_MARKDOWN_LINK: Final = re.compile(r"\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_ESCAPED: Final = re.compile(r"\\(.)")
_CODE_PATH: Final = re.compile(r"`(transcripts/[^`\s]+)`")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._code: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [value for name, value in attrs if name in ("href", "src") and value]
        if tag == "code":
            self._code = []

    def handle_data(self, data: str) -> None:
        if self._code is not None:
            self._code.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "code" and self._code is not None:
            text = "".join(self._code).strip()
            if text.startswith("transcripts/") and not any(c.isspace() for c in text):
                self.found.append(text)
            self._code = None


def links_of(page: Path) -> list[str]:
    """Every link target written in a Markdown or HTML page, then every transcript it names as code."""
    text = page.read_text(encoding="utf-8")
    if page.suffix == ".md":
        targets = _MARKDOWN_LINK.findall(text) + _CODE_PATH.findall(text)
        return [_ESCAPED.sub(r"\1", target) for target in targets]
    parser = _Links()
    parser.feed(text)
    return parser.found


def local_path(target: str) -> str | None:
    """The file a link names relative to its page, or None for an anchor, an absolute URL or a data URI."""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    return unquote(parts.path)


def broken_links(folder: Path) -> list[str]:
    """`page: target` for each relative link of each report page under `folder` whose file is missing."""
    broken: list[str] = []
    for name in REPORT_PAGES:
        for page in sorted(folder.rglob(name)):
            for target in links_of(page):
                path = local_path(target)
                if path is not None and not (page.parent / path).exists():
                    broken.append(f"{page.relative_to(folder)}: {target}")
    return broken
