"""A cut line keeps what differs, not the words that lead up to it (round 13, wild13's third-party servers):
a root cause's headline cut at its commas kept "RTE-10 departs — after stdin ended, …"; SPEC-6's kept its
record's long title; OBJ-4's counted lines where the answer was text instead of JSON; the summary's stop
sentence lost the original's side of a tool-name stop."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.differences import json_differences, text_difference
from conformance.core.jsontypes import JSON
from conformance.report.escape import conclusion_kept, cut_headline

# The real headlines of chinng-py (chinng-inta/chinngsFastApi @ bbaf7118c424), run with --arguments-map
# snake_case.
RTE_10 = ('RTE-10 departs — after stdin ended, stdout carried "{\\"jsonrpc\\":\\"2.0\\",'
          '\\"id\\":\\"unterminated\\",\\"result\\":{}}": a last request left without its newline was '
          'answered, where the original ends with no further output (3 checks fail)')
SPEC_6 = ("SPEC-6 departs — SPEC-6 (2025-06-18..2026-07-28 server/tools § Structured Content (SHOULD)) "
          "with the auto client, settled on 2025-11-25: structuredContent an accepted answer is in no "
          "text block: "
          '["✓ Thought 1/2 recorded ⏎ Content: era one ⏎ ➡️ Continue to next thought"]')
# promptly-ts's tool-name stop (Promptly-Technologies-LLC/mcp-sequential-thinking-node @ d00143ea9b0e).
PROMPTLY_STOP = (
    "it does not offer the sequentialthinking tool (it offers: capture_thought, revise_thought, "
    "retrieve_relevant_thoughts, get_thinking_summary, clear_thinking_history); its capture_thought takes "
    "thought, thought_number, total_thoughts, next_thought_needed, stage, is_revision, revises_thought, "
    "branch_from_thought, branch_id, needs_more_thoughts, score, tags (requiring thought, thought_number, "
    "total_thoughts, next_thought_needed, stage), where the original's sequentialthinking takes thought, "
    "thoughtNumber, totalThoughts, nextThoughtNeeded")


def test_a_headline_cut_keeps_what_happened_after_stdin_ended() -> None:
    for limit in (160, 200):
        cut = cut_headline(RTE_10, limit)
        assert len(cut) <= limit
        assert "a last request left without its newline" in cut, cut


def test_a_headline_cut_folds_a_records_title_to_keep_its_difference() -> None:
    """The record's prefix is folded, then cut, then dropped: the difference, its quoted value too, stays
    whole (issue 42: SPEC-1's headline ended in "…" where its prefix was kept)."""
    for limit in (160, 200):
        cut = cut_headline(SPEC_6, limit)
        assert len(cut) <= limit
        assert cut.startswith("SPEC-6 departs — "), cut
        assert cut.endswith(SPEC_6.split(" settled on 2025-11-25: ")[1]), cut
    assert "SPEC-6 (…) with the auto client" in cut_headline(SPEC_6, 200)
    assert cut_headline(SPEC_6, 400) == SPEC_6


_WORD = st.text(alphabet="abcdefghij", min_size=1, max_size=12)
_PART = st.lists(_WORD, min_size=1, max_size=12).map(" ".join)


@given(st.lists(_PART, min_size=1, max_size=8), st.integers(60, 300))
def test_a_single_clause_cut_keeps_most_of_its_room(parts: list[str], limit: int) -> None:
    """Commas that leave only a short preamble are not where a headline is cut: it is cut at a word."""
    text = ", ".join(parts)
    cut = cut_headline(text, limit)
    assert len(cut) <= limit
    if len(text) > limit:
        assert len(cut) * 3 >= limit * 2 - 3 * 14, cut


def test_an_answer_that_is_text_where_the_original_has_json_says_so_first() -> None:
    original = json.dumps({"thoughtNumber": 1, "totalThoughts": 3, "branches": ["zeta", "alpha"],
                           "nextThoughtNeeded": True, "thoughtHistoryLength": 2}, indent=2)
    target = "✓ Thought 1/3 recorded\nContent: branch zeta\n➡️ Continue to next thought\nbranch: zeta"
    said = text_difference(original, target)
    assert said.startswith("plain text {here} where the original has a JSON object; "), said
    reverse = text_difference(target, original)
    assert reverse.startswith("a JSON object {here} where the original has plain text")


@given(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.integers(), min_size=1),
       st.lists(st.text("xyz ✓:", min_size=1, max_size=20), min_size=2, max_size=6))
def test_json_against_text_is_said_whatever_the_lines(value: dict[str, int], lines: list[str]) -> None:
    original, target = json.dumps(value, indent=2), "\n".join(lines)
    assert text_difference(original, target).startswith("plain text {here} where the original has a JSON")
    both = json.dumps({**value, "e": 1}, indent=2)
    assert "plain text" not in text_difference(original, both)


def test_a_tool_name_stops_summary_keeps_the_originals_side() -> None:
    said = conclusion_kept(PROMPTLY_STOP, 400)
    assert len(said) <= 400
    assert said.endswith("where the original's sequentialthinking takes thought, thoughtNumber, "
                         "totalThoughts, nextThoughtNeeded"), said
    assert said.startswith("it does not offer the sequentialthinking tool")
    assert ", …, " in said


@given(st.lists(st.from_regex(r"[a-z_]{1,14}", fullmatch=True), min_size=20, max_size=60),
       st.integers(240, 600))
def test_a_long_conclusion_keeps_its_first_and_last_items(items: list[str], limit: int) -> None:
    text = "the server takes what it takes; its tool takes " + ", ".join(items)
    said = conclusion_kept(text, limit)
    assert len(said) <= limit
    if len(text) > limit:
        assert said.endswith(", " + items[-1]), said
        assert re.search(r"; its tool takes \w", said), said


@given(st.text(alphabet="ABCDEFGH0123456789+/", min_size=161, max_size=3000), st.booleans())
def test_a_long_value_in_a_difference_is_cut_in_its_middle_with_its_length(data: str, added: bool) -> None:
    """levalicious-ts's serverInfo.icons: a data URL of about 1,000 characters of base64 was shown whole in
    every evidence bullet."""
    icons: JSON = [{"src": f"data:image/svg+xml;base64,{data}", "mimeType": "image/svg+xml"}]
    base: dict[str, JSON] = {"name": "s", "version": "1"}
    grown: dict[str, JSON] = {**base, "icons": icons}
    (found,) = json_differences(base, grown) if added else json_differences(grown, base)
    said = found.said()
    assert len(said) <= 300, said
    length = len(data) + len("data:image/svg+xml;base64,")
    assert f"({length:,} characters)" in said and data[-20:] in said and '"mimeType": "image/svg+xml"' in said
