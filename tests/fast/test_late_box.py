"""A box is called written after its call was answered (RTE-9) only when it shows the call before's thought
and cannot be a render of its own, through every transform a render may apply to a thought."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.strategies import Envelope
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers.wire import Exchange
from conformance.suite.jsvalues import expected_box
from conformance.suite.render_box import only_box, written_late

_BLANKS = st.sampled_from(["", " ", "\t", "\r\n", "\n", " \t "])


@st.composite
def _thoughts(draw: st.DrawFn, letters: str) -> str:
    """A thought of words, each a letter of `letters` and then those letters or digits, any blanks between."""
    words = draw(st.lists(st.sampled_from(letters).flatmap(
        lambda first: st.text(st.sampled_from(letters + "0123456789"), max_size=7).map(first.__add__)),
        min_size=1, max_size=6))
    return "".join(word + draw(_BLANKS) for word in words)


@st.composite
def _rendered(draw: st.DrawFn, thought: str) -> str:
    """The rows a render may draw for `thought`: tabs expanded, numbers zero-padded, words coloured, rows
    wrapped or cut at a width with "…", each row padded between side borders."""
    text = thought.expandtabs(draw(st.integers(1, 8))) if draw(st.booleans()) else thought
    if draw(st.booleans()):
        text = re.sub(r"[0-9]+", lambda m: m.group(0).zfill(len(m.group(0)) + 1), text)
    width = draw(st.integers(4, 80))
    if draw(st.booleans()) and len(text) > width:
        text = text[: width - 1] + "…"
    lines = [line.ljust(width) for raw in text.replace("\r", "").split("\n")
             for line in ([raw[i:i + width] for i in range(0, len(raw), width)] or [""])]
    if draw(st.booleans()):
        lines = [re.sub(r"\S+", lambda m: f"\x1b[36m{m.group(0)}\x1b[0m", line) for line in lines]
    return "\n".join(f"│ {line} │" for line in lines)


@given(data=st.data(), thought=_thoughts("abcdefghijklm"))
def test_a_box_of_its_own_thought_is_never_late(data: st.DataObject, thought: str) -> None:
    """Whatever the call before sent (any text, or this thought as a render may show it), a render of this
    call's own thought is this call's box."""
    body = data.draw(_rendered(thought))
    shown = "\n".join(re.sub(r"\x1b\[[0-9;]*m", "", row)[2:-2].rstrip() for row in body.split("\n"))
    before = data.draw(st.one_of(st.text(), st.just(shown), st.integers(1, 8).map(thought.expandtabs),
                                 st.just(" ".join(thought.split()))))
    assert not written_late(thought, before, body)


@given(data=st.data(), thought=_thoughts("abcdefghijklm"), before=_thoughts("nopqrstuvwxyz"))
def test_a_box_of_the_call_before_is_late(data: st.DataObject, thought: str, before: str) -> None:
    """A whole render of the previous thought, which no render of this one can be, is a box written late."""
    body = data.draw(_rendered(before).filter(lambda rows: "…" not in rows))
    assert written_late(thought, before, body)


def _call(thought: str, request_id: int) -> dict[str, JSON]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": TOOL, "arguments": Envelope(thought, 2, 2, True).arguments()}}


def _exchange(thought: str, before: str, stderr: str) -> Exchange:
    """An accepted tools/call whose stderr is `stderr`, sent after a call with the thought `before`."""
    status = {"thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": True, "branches": [],
              "thoughtHistoryLength": 2}
    answer: dict[str, JSON] = {"jsonrpc": "2.0", "id": 2,
                               "result": {"content": [{"type": "text", "text": json.dumps(status)}]}}
    return Exchange("tools/call", _call(thought, 2), answer, stderr.encode(), 0.0, 0.0,
                    previous_call=_call(before, 1))


def test_a_tab_shown_as_spaces_is_not_the_blank_thought_before() -> None:
    """held-out-multi-17's fork-colour-console: "\\t\\r\\n" boxed with its tab as four spaces after "   "."""
    thought, before = "\t\r\n", "   "
    box = expected_box(Envelope(thought, 2, 2, True).arguments()).replace("\t", "    ")
    assert only_box(_exchange(thought, before, box)).lines
