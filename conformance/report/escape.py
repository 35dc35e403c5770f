"""Text that is safe to print: whatever a server wrote reaches the terminal only as visible escapes."""

from __future__ import annotations

import re
import sys
from typing import Final, TextIO

_UNSAFE: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb\ufffe\uffff\ud800-\udfff]"
)
"""C0/C1 controls, DEL, zero-width and bidirectional controls (a Trojan-source line), the noncharacters
U+FFFE/U+FFFF (no XML may hold them), lone surrogates."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: str, limit: int | None = None) -> str:
    """One printable line: every control or invisible character becomes a backslash escape."""
    cleaned = _UNSAFE.sub(_escape, text)
    if limit is not None and len(cleaned) > limit:
        cleaned = cleaned[: max(limit - 1, 0)] + "…"
    return cleaned


def encodable(text: str, stream: TextIO) -> str:
    """`text` as `stream` can encode it (a latin-1 terminal still gets every character, escaped)."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding)


def write_line(text: str, stream: TextIO | None = None) -> None:
    out = stream if stream is not None else sys.stdout
    out.write(encodable(text, out) + "\n")
    out.flush()
