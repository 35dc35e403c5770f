"""Text safe to print: whatever a server wrote reaches a reader only as visible escapes (the ground floor's,
so that every room, not only the writers, can quote a server's words)."""

from __future__ import annotations

import re
from typing import Final

from conformance.core.words import cut_text

_UNSAFE: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb\ufffe\uffff\ud800-\udfff]"
)
"""C0/C1 controls, DEL, zero-width and bidirectional controls (a Trojan-source line), the noncharacters
U+FFFE/U+FFFF (no XML may hold them), lone surrogates."""


_UNSAFE_IN_LINES: Final = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb\ufffe\uffff"
    "\ud800-\udfff]"
)
"""The same, but for line feeds and tabs: text of many lines (a log)."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: str, limit: int | None = None) -> str:
    """One printable line: every control or invisible character becomes a backslash escape."""
    cleaned = _UNSAFE.sub(_escape, text)
    if limit is not None and len(cleaned) > limit:
        cleaned = cut_text(cleaned, limit)
    return cleaned


def safe_lines(text: str) -> str:
    """Printable lines: every control or invisible character but a line feed or a tab becomes an escape."""
    return _UNSAFE_IN_LINES.sub(_escape, text)


def writable(text: str, encoding: str = "utf-8") -> str:
    """`text` as `encoding` can carry it: a code point it cannot (a lone surrogate, which a server's JSON
    `\\ud835` escape decodes to) becomes that backslash escape, the notation `safe` writes; never a crash,
    never a character dropped. Inside a JSON string the escape is JSON's own: a JSON file keeps it whole."""
    return text.encode(encoding, "backslashreplace").decode(encoding)


def encoded(text: str) -> bytes:
    """`text` in UTF-8 as a file takes it, every code point UTF-8 cannot carry written as its escape."""
    return text.encode("utf-8", "backslashreplace")
