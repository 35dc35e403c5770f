"""Characters no quote shows are said by what they are: a box whose lines end with "\\r\\n" is as wide and as
padded as the original's (fork-thought-log's CMP-5 read it as "21 columns wide, 1 wider"), and a trailing
space, a zero-width character, a byte-order mark or ANSI colour codes in a text are named, never counted as
columns or padding."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.differences import box_difference, quoted, text_difference
from conformance.suite.jsvalues import expected_box

thoughts = st.text(st.characters(codec="utf-8", categories=["L", "N", "P", "Zs"]), min_size=1, max_size=60)
numbers = st.integers(min_value=1, max_value=99)


def _box(thought: str, number: int, total: int) -> str:
    return expected_box({"thought": thought, "thoughtNumber": number, "totalThoughts": total,
                         "nextThoughtNeeded": True})


@given(thoughts, numbers, numbers)
def test_a_crlf_box_is_no_wider_box(thought: str, number: int, total: int) -> None:
    original = _box(thought, number, total)
    crlf = original.replace("\n", "\r\n")
    for said in (text_difference(original, crlf), box_difference(original, crlf)):
        assert "carriage return (\\r\\n)" in said and "each line of the box" in said, said
        assert "width, padding and rows as the original's" in said, said
        assert "columns wide" not in said and "padded" not in said, said


@given(thoughts, numbers, numbers, st.integers(min_value=1, max_value=20))
def test_crlf_and_a_real_width_change_are_both_said(thought: str, number: int, total: int, more: int) -> None:
    long = "y" * 40 + thought  # wider than any header here: the width is the thought's
    original = _box(long, number, total)
    wider = _box(long + "x" * more, number, total).replace("\n", "\r\n")
    said = box_difference(original, wider, "on B", "A")
    assert said.startswith("each line of the box ends with a carriage return (\\r\\n) on B"), said
    assert "columns wide on B" in said and f"{more} wider" in said, said


_MARKS: dict[str, tuple[Callable[[str], str], str]] = {
    "trailing space": (lambda text: text.replace("\n", " \n", 1), "ending with a space or tab"),
    "zero-width": (lambda text: text.replace("│ ", "│ \u200b", 1), "zero-width character"),
    "byte-order mark": (lambda text: "\ufeff" + text, "byte-order mark"),
    "ANSI colours": (lambda text: text.replace("│ ", "│ \x1b[1m", 1).replace(" │", "\x1b[0m │", 1),
                     "ANSI colour"),
}


@given(thoughts, numbers, numbers, st.sampled_from(sorted(_MARKS)))
def test_an_invisible_character_in_a_box_is_named(thought: str, number: int, total: int, mark: str) -> None:
    original = _box(thought, number, total)
    change, words = _MARKS[mark]
    said = text_difference(original, change(original))
    assert words in said, said
    assert "columns wide" not in said and "padded" not in said, said


_TEXT_MARKS: dict[str, tuple[Callable[[str], str], str]] = {
    "trailing space": (lambda text: text.replace("\n", " \n", 1), "ending with a space or tab"),
    "trailing tab": (lambda text: text.replace("\n", "\t\n", 1), "ending with a space or tab"),
    "zero-width": (lambda text: text[:3] + "\u200b" + text[3:], "zero-width character"),
    "byte-order mark": (lambda text: "\ufeff" + text, "byte-order mark"),
    "ANSI colours": (lambda text: "\x1b[31m" + text.replace("\n", "\x1b[0m\n", 1), "ANSI colour"),
    "CRLF": (lambda text: text.replace("\n", "\r\n"), "carriage return (\\r\\n)"),
}


@given(st.lists(st.text("abc ", min_size=1, max_size=8), min_size=2, max_size=6),
       st.sampled_from(sorted(_TEXT_MARKS)))
def test_an_invisible_character_in_any_text_is_named(lines: list[str], mark: str) -> None:
    """A description or a message: the kind is named; one after a line's text (a line end, a trailing
    space) is all that differs, one inside it is quoted escaped where the line changed."""
    original = "\n".join(f"- {line.strip() or 'x'}" for line in lines) + "\n"
    change, words = _TEXT_MARKS[mark]
    said = text_difference(original, change(original))
    assert words in said, said
    if mark in ("trailing space", "trailing tab", "CRLF"):  # after each line's text: nothing else differs
        assert "changes line" not in said and "adds" not in said and "drops" not in said, said


def test_a_quote_shows_carriage_returns_and_invisible_characters() -> None:
    assert quoted("┌──┐\r\n│ a │\u200b\ufeff") == "“┌──┐\\r ⏎ │ a │\\u200b\\ufeff”"


@given(thoughts, numbers, numbers, st.text("abcdefgh WARN:", min_size=1, max_size=30))
def test_a_crlf_box_after_a_plain_log_line_is_said_of_the_box(thought: str, number: int, total: int,
                                                              log: str) -> None:
    """stderr holding a plain "\\n" line beside the box (a warning the fork writes first): the carriage
    returns are said of each line of the box, and the log line as added."""
    original = _box(thought, number, total)
    target = f"\n{log.strip() or 'WARN'}\n" + original.lstrip("\n").replace("\n", "\r\n")
    said = text_difference(original, target)
    assert said.startswith("each line of the box ends with a carriage return (\\r\\n)"), said
    assert "columns wide" not in said and "padded" not in said and "adds “" in said, said
