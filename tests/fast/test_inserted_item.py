"""An item inserted into the description's lists is said as inserted: OBJ-11's check read the Key features
by position and called four features gone that sat one line lower (held-out-multi-12's fork-paged-history:
"the Key features not addressed to “you” are [Generates, Verifies, Repeats]"), and OBJ-12's read line 25 for
its heading. The lists are now found by their headings and compared as sequences; the failure quotes the
added line, the same line OBJ-5's pair shows, so the gate sees one change. Real processes: the reference
server with one line inserted (tests/servers/inserted_line.py)."""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance.core.differences import json_differences, text_difference
from conformance.core.differences import said as json_said
from tests.servers import command

ROOT = Path(__file__).resolve().parents[2]
PAGING = "- You can page back through earlier thoughts with get_thought_history"


def _outcomes(at: int, text: str, tmp: Path) -> dict[str, tuple[str, str]]:
    """OBJ-11's and OBJ-12's checks against the reference serving the inserted line: each one's outcome and
    failure message."""
    junit = tmp / "junit.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "conformance/suite/test_tool_spec.py", "-q",
         "-p", "no:cacheprovider", "-k", "test_assertive_block or test_directive_block",
         f"--basetemp={tmp / 'pytest'}",
         f"--junitxml={junit}", "--target", "cmd:" + shlex.join(command("inserted_line", str(at), text))],
        cwd=ROOT, capture_output=True, timeout=300, check=False)
    outcomes: dict[str, tuple[str, str]] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        failure = case.find("failure")
        outcomes[case.get("name", "").split("[")[0]] = (
            "failed" if failure is not None else "skipped" if case.find("skipped") is not None else "passed",
            failure.get("message", "") if failure is not None else "")
    return outcomes


@settings(max_examples=1, deadline=None)
@given(at=st.integers(min_value=5, max_value=23),
       words=st.text("abcdefghij ", min_size=12, max_size=40).map(str.strip).filter(lambda w: len(w) >= 10))
@example(at=19, words=PAGING.removeprefix("- "))
def test_an_inserted_list_item_is_said_as_inserted(at: int, words: str) -> None:
    """OBJ-11 fails quoting the added item, says the original's lines are all still there, and names no
    feature as gone; OBJ-12's block, moved one line down, holds."""
    text = f"- {words}"
    with tempfile.TemporaryDirectory(prefix="inserted-") as tmp:
        outcomes = _outcomes(at, text, Path(tmp))
    outcome, message = outcomes["test_assertive_block"]
    assert outcome == "failed", outcomes
    assert f"adds “{text}” before" in message and "all still there" in message, message
    assert "are all still there" in message and "lacks" not in message, message
    assert "not addressed" not in message and "dropped" not in message, message
    assert outcomes["test_directive_block"][0] == "passed", outcomes


@given(st.lists(st.text("abcxyz", min_size=1, max_size=6), min_size=1, max_size=8, unique=True),
       st.data())
def test_a_text_with_one_line_inserted_says_the_insertion_and_nothing_dropped(
    lines: list[str], data: st.DataObject
) -> None:
    """`text_difference` of two texts, one with a line inserted: that line added, before its successor
    (or at the end), the original's lines all still there; no line dropped or changed."""
    at = data.draw(st.integers(min_value=0, max_value=len(lines)))
    new = "+" + data.draw(st.text("abcxyz", min_size=1, max_size=6))
    said = text_difference("\n".join(lines), "\n".join([*lines[:at], new, *lines[at:]]))
    where = f"before “{lines[at]}”" if at < len(lines) else "at the end"
    assert f"adds “{new}” {where}" in said, said
    assert f"the original's {len(lines)} lines are all still there" in said, said
    assert "drops" not in said and "changes" not in said, said


@given(st.lists(st.integers(min_value=0, max_value=50), min_size=2, max_size=8, unique=True), st.data())
def test_an_item_inserted_into_a_json_list_is_said_where_it_sits(
    items: list[int], data: st.DataObject
) -> None:
    """An answer's list with one item inserted mid-list: that item added before the one it now precedes,
    the others all still there; never each later index as a changed value."""
    at = data.draw(st.integers(min_value=0, max_value=len(items) - 1))
    said = json_said(json_differences({"x": items}, {"x": [*items[:at], 99, *items[at:]]}))
    assert said.startswith(f"x: {len(items)} item(s) on the original, {len(items) + 1} here: 99 added before "
                           f"{items[at]}; the other {len(items)} item(s) are all still there"), said
    assert "x[" not in said, said
