"""Cutting a text for a line a person reads, shared by every writer (core: no imports, no hypothesis)."""

from __future__ import annotations


def cut_text(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, '…' last: at the last space when one is in the last third, so a
    cut never leaves a fragment of a word ("2026-…", "'Est…"); a long unbroken token is cut where it must."""
    if len(text) <= limit:
        return text
    kept = text[: max(limit - 1, 0)]
    space = kept.rfind(" ")
    if space >= max(1, (2 * limit) // 3):
        kept = kept[:space].rstrip(" ,;:")
    return kept + "…"
