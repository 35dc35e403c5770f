"""A box sized in another unit says its rule (issue 42): the original pads the thought to the border in UTF-16
units (`padEnd`); a fork sizing its box for a terminal counts columns (a CJK character two, a combining accent
none), another code points. compare said "the thought's width counted otherwise" or only "N columns wide";
it now says which unit each side pads to, from the thought row's padding. Real processes: the reference
against tests/servers/reference_fork.py `columns-box`."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.differences import box_difference
from tests.witnessed import witness_candidates


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _columns(text: str) -> int:
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _box(thought: str, measure: Callable[[str], int], header: str = "💭 Thought 1/1", margin: int = 4) -> str:
    """The original's box (formatThought), its border and padding counted by `measure`, `margin` columns
    wider than the wider of header and thought."""
    width = max(measure(header), measure(thought)) + margin
    border = "─" * width
    return (f"\n┌{border}┐\n│ {header} │\n├{border}┤\n│ {thought}{' ' * (width - 2 - measure(thought))} │"
            f"\n└{border}┘")


MEASURES = {"UTF-16 units": _utf16, "code points": len, "terminal columns": _columns}
THOUGHT = st.text(alphabet="ab 漢字😀\u0301", min_size=1, max_size=40).filter(
    lambda t: t == t.strip() and not unicodedata.combining(t[0]))


@given(THOUGHT, st.sampled_from(["code points", "terminal columns"]))
def test_the_unit_each_side_pads_to_is_said(thought: str, unit: str) -> None:
    said = box_difference(_box(thought, _utf16), _box(thought, MEASURES[unit]), "on fork", "0.6.2")
    counts = {name: measure(thought) for name, measure in MEASURES.items()}
    if counts[unit] == counts["UTF-16 units"]:  # the header's emoji may still size the box otherwise
        assert "is padded to its" not in said, said
        return
    told = list(counts.values()).count(counts[unit]) == 1 and list(counts.values()).count(
        counts["UTF-16 units"]) == 1
    rule = f"padded to its {unit} ({counts[unit]}) on fork, to its UTF-16 units ({counts['UTF-16 units']})"
    assert (rule in said) == told, said


@given(st.text(alphabet="ab xy", min_size=1, max_size=40).filter(lambda t: t == t.strip()),
       st.sampled_from([2, 3, 5, 6]), st.sampled_from(["x", "💭 Thought 1/1"]))
def test_a_box_sized_otherwise_around_the_same_thought_is_not_a_thought_counted_otherwise(
        thought: str, margin: int, header: str) -> None:
    """#4005's head draws the border two columns past the wider of header and thought, not four: the thought
    row's padding moves with the border, the thought measured alike ("the thought's width counted otherwise"
    was false there)."""
    said = box_difference(_box(thought, _utf16, header), _box(thought, _utf16, header, margin), "on fork",
                          "0.6.2")
    way = "narrower" if margin < 4 else "wider"
    assert "counted otherwise" not in said, said
    assert f"the thought measured alike on both ({len(thought)}), padded to the {way} box" in said, said


def test_compare_says_a_fork_pads_its_box_to_terminal_columns() -> None:
    candidates = witness_candidates("reference_fork", "columns-box")
    said = [box_difference(c.found.a, c.found.b, "on columns-box", "reference") for c in candidates
            if c.found.aspect == "stderr"]
    rule = ("the thought “😀 漢字 e\u0301” is padded to its terminal columns (9) on columns-box, to its "
            "UTF-16 units (8) on reference's")
    assert any(rule in s for s in said), said
