"""The stderr box's change said in words — width, the header row's padding, rows per line of a multi-line
thought — with a multi-line thought's box its own difference (issue 42: "differs at its top border")."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.observe import Outcome, compare_step
from conformance.compare.programs import Step, frames, valid
from conformance.core.differences import box_difference, terminal_columns
from conformance.core.protocol import TOOL
from conformance.report.model import Difference


def original_box(header: str, thought: str) -> str:
    """The original's formatThought: border = longest of header and thought + 4, the thought in one row."""
    border = "─" * (max(len(header), len(thought)) + 4)
    return f"\n┌{border}┐\n│ {header} │\n├{border}┤\n│ {thought.ljust(len(border) - 2)} │\n└{border}┘\n"


def reworked_box(header: str, thought: str) -> str:
    """Two columns narrower, the header padded to the border, one row per line of the thought."""
    lines = thought.split("\n")
    border = "─" * (max([len(header), *map(len, lines)]) + 2)
    rows = "\n".join(f"│ {line.ljust(len(border) - 2)} │" for line in lines)
    return f"\n┌{border}┐\n│ {header.ljust(len(border) - 2)} │\n├{border}┤\n{rows}\n└{border}┘\n"


HEADER = "Thought 1/1"


def test_width_padding_and_rows_are_said() -> None:
    thought = "a thought longer than its header"
    said = box_difference(original_box(HEADER, thought), reworked_box(HEADER, thought), "on head", "base")
    assert "2 narrower than base's" in said, said
    assert "header row is padded with 1 space(s) before and 22 after its text on head, 1 and 1 on base" in \
        said, said
    multi = "line one\nline two"
    said = box_difference(original_box(HEADER, multi), reworked_box(HEADER, multi), "on head", "base")
    assert "2 rows, one row per line of the thought on head" in said, said
    assert "the thought's 2 lines as one row broken at its line break" in said, said


def _outcome(stderr: str) -> Outcome:
    return Outcome("result", text="{}", parsed={}, parses=True, stderr=stderr)


def test_a_multi_line_thought_is_its_own_difference_and_its_own_clause() -> None:
    plain, multi = valid(thought="a thought longer than its header"), valid(thought="line one\nline two")
    found = [compare_step(Step(TOOL, args), _outcome(original_box(HEADER, str(args["thought"]))),
                          _outcome(reworked_box(HEADER, str(args["thought"]))))[0] for args in (plain, multi)]
    assert found[0].signature != found[1].signature
    differences = [Difference(id=f.signature, aspect=f.aspect, summary="", field=f.field, detail=f.detail,
                              a=f.a, b=f.b, program=frames((Step(TOOL, args),)))
                   for f, args in zip(found, (plain, multi), strict=True)]
    headline = explain(differences, "base", "head", default_known_changes()).headline
    assert "differs at its top border" not in headline, headline
    assert "the stderr box of an accepted call differs: the box is" in headline.lower(), headline
    assert "the stderr box of a multi-line thought differs" in headline and "one row per line" in headline


def test_a_wide_box_is_kept_whole_enough_to_read() -> None:
    thought = "w" * 900
    found = compare_step(Step(TOOL, valid(thought=thought)), _outcome(original_box(HEADER, thought)),
                         _outcome(reworked_box(HEADER, thought)))[0]
    said = box_difference(found.a, found.b, "on head", "base")
    assert said.startswith("the box is 904 columns wide on head, 2 narrower than base's 906"), said


def test_lines_after_an_unchanged_box_are_said_after_the_box() -> None:
    """agiprolabs-ts draws the original's box, then writes Redis notices: compare said the box "differs at its
    after the box". Lines after the box are said as what they are, quoted."""
    args = valid(thought="a thought longer than its header")
    box = original_box(HEADER, str(args["thought"]))
    noticed = box + "[EventPublisher] Not connected\n"
    [found] = compare_step(Step(TOOL, args), _outcome(box), _outcome(noticed))
    difference = Difference(id=found.signature, aspect=found.aspect, summary="", field=found.field,
                            detail=found.detail, a=found.a, b=found.b, program=frames((Step(TOOL, args),)))
    headline = explain([difference], "base", "head", default_known_changes()).headline
    assert "at its after the box" not in headline, headline
    assert ("head adds lines around an unchanged stderr box of an accepted call: “[EventPublisher] Not "
            "connected” after it") in headline, headline


@given(length=st.integers(min_value=121, max_value=600), limit=st.integers(min_value=20, max_value=120))
def test_a_row_cut_short_is_said_with_where_it_was_cut(length: int, limit: int) -> None:
    # held-out-multi-8 fork-compact-terminal: "the box is 126 columns wide here, 4880 narrower" never said the
    # thought was cut at 120 characters.
    thought = "".join(chr(ord("a") + i % 26) for i in range(length))
    said = box_difference(original_box(HEADER, thought), original_box(HEADER, thought[:limit - 1] + "…"))
    assert f"its row is the thought cut at {limit} characters, “…” last" in said, said
    kept = box_difference(original_box(HEADER, thought), original_box(HEADER, thought[:limit]))
    assert "cut at" not in kept, kept  # narrower without the mark: a row not said cut


@given(thought=st.text(alphabet="⺀漢字가😀é", min_size=1, max_size=12), wide=st.integers(1, 3))
def test_a_row_padded_otherwise_in_a_box_as_wide_is_said(thought: str, wide: int) -> None:
    """The same border, the thought's row padded with fewer spaces: a width counted in terminal columns
    (held-out-multi-14's multilingual, "⺀" as two columns) was "differs at its body"."""
    header = "Thought 1/1 with a long header line"
    original = original_box(header, thought)
    lines = original.split("\n")
    lines[4] = lines[4][:-1 - wide] + "│"
    said = box_difference(original, "\n".join(lines), "on head", "base")
    pad = len(lines[4][1:-1]) - len(lines[4][1:-1].rstrip(" "))
    assert f"is padded with {pad} space(s) before its right border on head, {pad + wide} on base's, the " \
           f"border as wide" in said, said


@given(control=st.sampled_from("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"),
       text=st.text(alphabet="שלום مرحبا ab", min_size=1, max_size=10))
def test_a_thought_wrapped_in_bidi_controls_is_said_by_them(control: str, text: str) -> None:
    """held-out-multi-14's multilingual boxed right-to-left thoughts in U+2068 … U+2069: the box was said to
    "differ at its body", nothing visible named."""
    said = box_difference(original_box(HEADER, text), original_box(HEADER, f"{control}{text}\u2069"),
                          "on head", "base")
    assert "bidirectional control(s)" in said and "on head where base has 0" in said, said


def test_two_changes_two_boxes_show_are_both_said() -> None:
    """held-out-multi-14's multilingual: one box with its right-to-left thought isolated, another a column
    wider; the headline said the smallest box's change alone."""
    rtl, wide = valid(thought="שלום عالم"), valid(thought="a thought longer than its header")
    shown = [(rtl, original_box(HEADER, "שלום عالم"), original_box(HEADER, "\u2068שלום عالم\u2069")),
             (wide, original_box(HEADER, str(wide["thought"])), reworked_box(HEADER, str(wide["thought"])))]
    differences = []
    for args, a, b in shown:
        [f] = compare_step(Step(TOOL, args), _outcome(a), _outcome(b))
        differences.append(Difference(id=f"{f.signature}.{len(differences)}", aspect=f.aspect, summary="",
                                      field=f.field, detail=f.detail, a=f.a, b=f.b,
                                      program=frames((Step(TOOL, args),))))
    headline = explain(differences, "base", "head", default_known_changes()).headline
    assert "2 bidirectional control(s)" in headline and "2 narrower than base's" in headline, headline


@given(header=st.sampled_from(["💭 Thought 1/3", "Thought 1/1", "🌿 Branch 2/4 (from thought 1, ID: b)"]),
       thought=st.text(alphabet="abc xyz", min_size=1, max_size=60))
def test_a_header_row_aligned_with_its_border_on_one_side_only_is_said(header: str, thought: str) -> None:
    """#4005: the original draws the header row unpadded, short of the border by the emoji's second column
    or by a longer thought; a head padding it to the border was said only by its padding ("1 and 22")."""
    original, reworked = original_box(header, thought), reworked_box(header, thought)
    said = box_difference(original, reworked, "on head", "base")
    was, now = (terminal_columns(box.split("\n")[1]) - terminal_columns(box.split("\n")[2])
                for box in (original, reworked))
    if was and not now:
        assert (f"its header row ends flush with the box's right edge on head, ends {was} column"
                f"{'s' if was != 1 else ''} short of the box's right edge on base's") in said, said
    else:
        assert "header row ends" not in said, said
    wider = original_box(header, thought + "wider still")
    assert "header row ends" not in box_difference(original, wider, "on head", "base")


def test_4005s_header_row_is_said_flush_on_head_and_short_on_base() -> None:
    """modelcontextprotocol/servers #4005 (base = merge-base, head = refs/pull/4005/head), a one-line thought:
    the emoji's second column leaves base's header row two columns short of its border."""
    base = ("\n┌──────────────────┐\n│ 💭 Thought 1/3 │\n├──────────────────┤\n│ a                │\n"
            "└──────────────────┘\n")
    head = ("\n┌────────────────┐\n│ 💭 Thought 1/3 │\n├────────────────┤\n│ a              │\n"
            "└────────────────┘\n")
    said = box_difference(base, head, "on head", "base")
    assert ("its header row ends flush with the box's right edge on head, ends 2 columns short of the box's "
            "right edge on base's") in said, said
