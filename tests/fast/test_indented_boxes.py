"""A fork that indents a box (a branch's box set in under its trunk) still draws one box per call: the box
reader counts it, so LOOP-A and LOOP-B count boxes truly ("stderr holds 3 boxes after 4 accepted calls" was
false of a fork indenting its branch boxes), and its indent is the box's form, CMP-5's to judge."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.suite.jsvalues import expected_box
from conformance.suite.render_box import boxes, drawn

_PLAIN: dict[str, JSON] = {"thought": "a trunk thought", "thoughtNumber": 1, "totalThoughts": 2,
                           "nextThoughtNeeded": True}
_BRANCH: dict[str, JSON] = {"thought": "a branch thought", "thoughtNumber": 2, "totalThoughts": 2,
                            "nextThoughtNeeded": False, "branchFromThought": 1, "branchId": "b"}


def _indented(box: str, indent: str) -> str:
    return "\n".join(indent + line if line else line for line in box.split("\n"))


@given(indent=st.text(alphabet=" \t", min_size=1, max_size=8), calls=st.integers(min_value=1, max_value=4))
def test_an_indented_box_is_one_box_per_call(indent: str, calls: int) -> None:
    trunk, branch = expected_box(_PLAIN), expected_box(_BRANCH)
    stderr = "Sequential Thinking MCP Server running on stdio\n" + "".join(
        trunk + "\n" + _indented(branch, indent) + "\n" for _ in range(calls))
    found = boxes(stderr.encode())
    assert len(found) == 2 * calls
    branch_box = found[1]
    # Read as the original's box (its caption, its body), written as the fork wrote it (indented): the byte
    # comparison CMP-5 makes still sees the indent, and taking the box out of stderr leaves nothing of it.
    assert branch_box.kind == "Branch" and branch_box.numbers == ("2", "2")
    assert "a branch thought" in branch_box.body
    assert branch_box.text != boxes(branch.encode())[0].text
    assert branch_box.text in stderr
    leftover = stderr
    for box in found:
        leftover = leftover.replace(box.text, "", 1)
    assert leftover.strip() == "Sequential Thinking MCP Server running on stdio"


def test_an_unindented_box_reads_as_before() -> None:
    box = expected_box(_PLAIN)
    (found,) = boxes(box.encode())
    assert found.text == box.strip("\n") and found.lines == tuple(box.strip("\n").split("\n"))


def test_a_box_whose_bottom_is_not_indented_like_its_top_is_no_box_but_is_drawn() -> None:
    """The bottom border must close the box at its top's indent: a frame cut or mis-set is drawn in another
    form (CMP-5's), not a box."""
    lines = expected_box(_PLAIN).strip("\n").split("\n")
    broken = "\n".join(["  " + line for line in lines[:-1]] + [lines[-1]])
    assert boxes(broken.encode()) == [] and drawn(broken.encode())
