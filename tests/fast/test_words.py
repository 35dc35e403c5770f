"""A cut line keeps whole words: "2026-…" or "'Est…" never stand for a revision or a message."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.words import cut_text
from conformance.report.escape import safe

WORD = st.text(alphabet="abcdefghij-'", min_size=1, max_size=12)


@given(st.lists(WORD, min_size=1, max_size=30), st.integers(min_value=1, max_value=120))
def test_a_cut_is_within_its_limit_and_ends_at_a_word_near_it(words: list[str], limit: int) -> None:
    text = " ".join(words)
    cut = cut_text(text, limit)
    assert len(cut) <= limit
    if len(text) <= limit:
        assert cut == text
        return
    assert cut.endswith("…")
    kept = cut[:-1]
    if " " in text[: limit - 1][(2 * limit) // 3 :]:
        assert text.startswith(kept) and text[len(kept)] == " ", (text, cut)


def test_the_skip_reasons_revision_list_is_cut_between_revisions() -> None:
    line = "SPEC-10 binds 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"
    assert safe(line, 56) == "SPEC-10 binds 2025-03-26, 2025-06-18, 2025-11-25…"
