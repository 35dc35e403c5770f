"""A field is named by a check's own words, not by a text it quotes in straight quotes (gate/evidence._tells,
issue 42, round 14): stopuncle-js' BAP-1 and BAP-6 quoted its description "… the ability to create branches
…" and went under OBJ-4, whose pair shows `branches` dropped from the answer, once that pair reproduced."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import _tells

DROPPED = "result.content[0].text → branches: [] on the original, absent here"
WORDS = st.lists(st.from_regex(r"[a-z]{2,9}", fullmatch=True), min_size=1, max_size=6)


@given(before=WORDS, after=WORDS, closed=st.booleans())
def test_a_quoted_description_names_no_field(before: list[str], after: list[str], closed: bool) -> None:
    quoted = f"{' '.join(before)} the ability to create branches {' '.join(after)}"
    end = '"' if closed else ""
    message = ("the description the official client got has no numbered rules under 'You should:': "
               f"\"{quoted}{end}")
    assert not _tells(DROPPED, message, strict=True)


@given(quote=st.sampled_from(["'branches'", "\"branches\"", "branches"]))
def test_the_checks_own_word_for_the_field_still_names_it(quote: str) -> None:
    message = (f"the status object has no {quote}, where the original answers thoughtHistoryLength "
               "and branches")
    assert _tells(DROPPED, message, strict=True)
