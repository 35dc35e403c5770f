"""Lines a server writes on stderr around an unchanged box are said as lines around the box, never as the box
differing "at its blank" (issue 46: a server in the wild logging "[DEBUG] …" before and after the original's
box). Real processes: the reference against `reference_fork.py debug-stderr`."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.attribution import default_rules
from conformance.compare.engine import _call_difference, explained
from conformance.compare.observe import AFTER_THE_BOX, AROUND_THE_BOX, _box_line, compare_step
from conformance.compare.pair import replay_fresh
from conformance.compare.programs import Step, valid
from conformance.compare.search import Candidate
from conformance.core.differences import around_box, around_unchanged_box, box_difference
from conformance.core.protocol import TOOL
from conformance.targets.specs import resolve_target
from tests.servers import fork_target

BOX = "\n┌────────────────┐\n│ 💭 Thought 1/2 │\n├────────────────┤\n│ a              │\n└────────────────┘"


def test_a_server_logging_around_the_box_is_said_to_add_lines_around_it() -> None:
    fork, reference = fork_target("debug-stderr"), resolve_target("reference")
    steps = (Step(TOOL, valid(thought="one line")), Step(TOOL, valid(thought="two\nlines")))
    differences = []
    for step in steps:
        oa, ob = replay_fresh(reference, fork, (step,), 20.0)
        [found] = [f for f in compare_step(step, oa[0], ob[0]) if f.aspect == "stderr"]
        assert found.field == AROUND_THE_BOX, found
        differences.append(_call_difference(Candidate(found, (step,), True), found, default_rules(), "ref",
                                            "fork"))
    [cause] = explained(differences, default_rules(), "ref", "fork", None)
    assert "blank" not in cause.summary and "differs" not in cause.summary, cause.summary
    every = "fork adds lines around an unchanged stderr box of every accepted call"
    assert cause.summary.startswith(every), cause.summary
    assert "“[DEBUG] processing thought 1” before it and “[DEBUG] stored thought 1” after it" in cause.summary


_LOG = st.lists(st.from_regex(r"\[(DEBUG|INFO)\] [a-z]{1,12}( [a-z0-9]{1,8}){0,3}", fullmatch=True),
                min_size=0, max_size=3)


@given(_LOG, _LOG)
def test_lines_around_a_box_drawn_alike_are_each_quoted_where_they_sit(before: list[str], after: list[str]
                                                                     ) -> None:
    fork = "\n".join([*before, BOX, *after])
    said = around_unchanged_box(BOX, fork, "head", "an accepted call")
    field = _box_line(BOX, fork)
    if not before and not after:
        assert said == "", said
        return
    assert said.startswith("head adds lines around an unchanged stderr box of an accepted call: "), said
    for line in before[:2]:
        assert f"“{line}”" in said.split(" before it")[0], said
    for line in after[:2]:
        assert f"“{line}”" in said, said
    assert field == (AROUND_THE_BOX if before else AFTER_THE_BOX), field
    assert around_box(fork, BOX, "on head").startswith("drops "), around_box(fork, BOX, "on head")
    assert "before the box" in box_difference(BOX, fork, "on head", "base") or not before


def test_a_box_drawn_otherwise_is_no_unchanged_box() -> None:
    wider = BOX.replace("─┐", "──┐").replace("─┘", "──┘").replace("─┤", "──┤").replace(" │", "  │")
    assert around_unchanged_box(BOX, "[DEBUG] x\n" + wider, "head", "an accepted call") == ""
    assert "columns wide" in box_difference(BOX, "[DEBUG] x\n" + wider, "on head", "base")
