"""A cut line keeps whole words: "2026-…" or "'Est…" never stand for a revision or a message."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import example, given
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


NAME = st.from_regex(r"[a-z_][a-z0-9_]{0,18}", fullmatch=True)


@given(st.lists(NAME, min_size=3, max_size=40, unique=True),
       st.sampled_from(["", ")", "), where the original offers x"]), st.integers(min_value=20, max_value=400))
def test_a_cut_list_of_names_counts_those_it_leaves_out(names: list[str], after: str, limit: int) -> None:
    """A server's 20 tools cut to "…, resume_session…" left no count of what was not shown (issue 46): a
    cut inside a list of names keeps whole names, then "and N more", N the names left out."""
    text = "it does not offer the sequentialthinking tool (it offers: " + ", ".join(names) + after
    cut = cut_text(text, limit)
    assert len(cut) <= limit, cut
    head = len(text) - len(", ".join(names)) - len(after)
    room = head + len(", ".join(names[:2])) + len(f", and {len(names)} more)…")
    if len(text) <= limit or room > limit or head + len(", ".join(names)) <= limit - 1:
        return  # no cut inside the list, or no room for two names and the count
    shown, _, left = cut[head:].partition(", and ")
    count = int(left.split(" ")[0])
    assert shown.split(", ") == names[: len(names) - count], (cut, names)
    assert 1 <= count <= len(names) - 2, cut


def test_a_stop_on_38_tools_says_how_many_it_does_not_show() -> None:
    """mcp-coaia-sequential-thinking 0.3.13's stop, as the terminal and report.md cut it (600 and 400
    characters): "…, generate_active_pause_drafts, and 29 more)", not "…, generate_active_pause_drafts…)"."""
    from conformance.report.escape import conclusion_kept, cut_headline

    tools = [f"check_integration_{i}" for i in range(38)]
    stop = (f"it does not offer the sequentialthinking tool (it offers: {', '.join(tools)}); its process "
            "takes thought, thought_number (requiring thought), where the original's sequentialthinking "
            "takes thought, thoughtNumber, totalThoughts, nextThoughtNeeded")
    for limit in (400, 600):
        said = conclusion_kept(stop, limit)
        shown = said.split("(it offers: ")[1].split(" more)")[0]
        names, _, count = shown.rpartition(", and ")
        assert names.split(", ") == tools[: 38 - int(count)], said
        assert said.endswith("nextThoughtNeeded"), said
    listing = f"tools/list offers {', '.join(tools)}, where the original offers sequentialthinking"
    headline = cut_headline(listing, 160)
    assert headline.endswith(" more, where the original offers sequentialthinking"), headline


def test_a_port_with_38_tools_is_stopped_with_a_count_of_those_not_shown(tmp_path: Path) -> None:
    """The preflight on a real process (tests/servers/ports.py renamed+sessions: 38 tools, as
    mcp-coaia-sequential-thinking 0.3.13 lists them): the terminal's stop counts the tools it leaves out."""
    from conformance.cli.runner.preflight import preflight
    from conformance.report.sections import preflight as preflight_section
    from conformance.targets.specs import resolve_target

    ports = Path(__file__).resolve().parent.parent / "servers" / "ports.py"
    seen = preflight(resolve_target(f"cmd:{sys.executable} {ports} renamed+sessions"), tmp_path, 10.0,
                     None).preflight
    assert not seen.ok and seen.tools is not None and len(seen.tools) == 38, seen
    line = preflight_section.terminal(seen)[0]
    shown = line.split("(it offers: ")[1].split(" more)")[0]
    names, _, count = shown.rpartition(", and ")
    assert names.split(", ") == seen.tools[: 38 - int(count)], line


@given(st.lists(NAME, min_size=4, max_size=40, unique=True), st.integers(min_value=40, max_value=300),
       st.integers(min_value=20, max_value=300))
@example([f"tool_{i}" for i in range(30)], 200, 100)
@example(["_0000000000000", *(f"n{i}" for i in range(37))], 208, 50)  # a cut backed into the list
@example(["_", "a", "b", "c"], 44, 30)  # a cut leaving "where…" after the list
def test_a_list_cut_twice_counts_every_name_left_out(names: list[str], first: int, second: int) -> None:
    """A cause's headline is cut for the report, then again for the terminal: mcp-coaia-sequential-thinking's
    CMP-2 read "…, clear_history, and 4 more, and 31 more, where …"; the counts join into one."""
    text = "tools/list offers " + ", ".join(names) + ", where the original offers x"
    twice = cut_text(cut_text(text, first), second)
    assert twice.count(" more") <= 1, twice
    if " more" in twice:
        shown, _, left = twice[len("tools/list offers "):].partition(", and ")
        assert len(shown.split(", ")) + int(left.split(" ")[0]) == len(names), twice


def test_a_hostile_list_is_cut_in_linear_time() -> None:
    """A first version joined the kept names once per name it dropped: 400,000 names never finished."""
    import time

    from conformance.core.words import LISTED_TEXT_MAX

    for text in ("a, " * 400_000 + "a b", "ab, " * (LISTED_TEXT_MAX // 4 - 10) + "x"):
        started = time.perf_counter()
        cut = cut_text(text, 300)
        assert len(cut) <= 300 and time.perf_counter() - started < 2.0, cut


@given(st.lists(NAME, min_size=4, max_size=60, unique=True), st.integers(min_value=0, max_value=300),
       st.integers(min_value=0, max_value=30), st.sampled_from([400, 600]))
@example([f"tool_number_{n}" for n in range(26)], 140, 12, 400)
def test_a_second_stop_keeps_its_first_names_and_their_count(names: list[str], line: int, fields: int,
                                                             limit: int) -> None:
    """A stray stdout line's stop joined to a tool-name stop (lsekit-sequentialthinking's 26 tools): the
    summary's 400 characters kept 64 of the second stop, "(it offers…)", no name and no count. It now keeps
    three names and the count of the rest, beside the conclusion kept whole."""
    from conformance.report.escape import conclusion_kept

    stray = ("stdout line is not JSON, so not a JSON-RPC message (it stops being JSON at its character 1): '"
             + "x" * line + "'")
    taken = ", ".join(f"field_{n}" for n in range(fields)) or "nothing"
    conclusion = ("where the original's sequentialthinking takes thought, thoughtNumber, totalThoughts, "
                  "nextThoughtNeeded")
    said = (f"{stray}; and it does not offer the sequentialthinking tool (it offers: {', '.join(names)}); "
            f"its add_step takes {taken}, {conclusion}")
    kept = conclusion_kept(said, limit)
    assert len(kept) <= limit and kept.endswith(conclusion), kept
    listed = kept.split("(it offers: ", 1)[1].split(")", 1)[0]
    if listed == ", ".join(names):
        return
    shown, _, more = listed.partition(", and ")
    assert len(shown.split(", ")) >= 3 and shown.split(", ") == names[: len(shown.split(", "))], kept
    assert more == f"{len(names) - len(shown.split(', '))} more", kept
