"""A box drawn in ASCII ("+----+" at its top, middle rule and bottom) arriving late through a relay is its
call's, on every call: no corner of it says the box is closed, so each wait for it ended as if none came,
and after three such waits its server was taken to write no box; from then on each late box was read as the
next call's (fork-tidy-plan through `tests/servers/late_stderr.py`, held-out-multi-15's flap table: 24
entries "changed", issue 43). Rules arriving now extend the wait, and two rules with nothing left open are
a late box. Simulated by a relay 150-200 ms late around the reference's `ascii-box` fork, on real processes.
"""

from __future__ import annotations

import sys

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.drivers.lateness import Lateness
from conformance.drivers.wire import SETTLE_MISSES, SETTLE_QUIET, WireDriver, ruled_box, ruled_complete
from conformance.suite.rawproc import RawServer
from conformance.targets.specs import resolve_target
from tests.cli import REPO
from tests.side_by_side import side_by_side

ASCII = [sys.executable, str(REPO / "tests" / "servers" / "reference_fork.py"), "ascii-box"]
RELAYED = [sys.executable, str(REPO / "tests" / "servers" / "late_stderr.py"), "--delay-ms", "150,200", "--",
           *ASCII]
"""The ASCII-box fork behind a relay forwarding its stderr 150 to 200 ms late: later than `SETTLE_QUIET`."""
CALLS: list[dict[str, JSON]] = [
    call for n in range(1, SETTLE_MISSES + 3) for call in (
        {"thought": f"thought {n}", "thoughtNumber": n, "totalThoughts": 9, "nextThoughtNeeded": True},
        {"thought": "", "thoughtNumber": n})]
"""More accepted calls than the waits after which a server is taken to write no box, each one followed by a
refusal (which owes no box)."""


def _stderrs(command: list[str], lateness: Lateness) -> list[bytes]:
    with WireDriver(command, timeout=60, lateness=lateness) as driver:
        driver.initialize()
        return [driver.call_tool("sequentialthinking", arguments).stderr for arguments in CALLS]


def test_late_ascii_boxes_are_each_their_calls() -> None:
    assert SETTLE_QUIET < 0.15, "the relay must be later than the fixed quiet period to test anything"
    lateness = Lateness()

    def relayed() -> list[bytes]:
        _stderrs(RELAYED, lateness)  # the run's first process: its banner and boxes came late
        return _stderrs(RELAYED, lateness)

    direct, got = side_by_side(lambda: _stderrs(ASCII, Lateness()), relayed)
    assert all(ruled_box(s) for s in direct[::2]) and not any(direct[1::2]), direct
    assert got == direct, [(n, a[:40], b[:40]) for n, (a, b) in enumerate(zip(direct, got, strict=True))
                           if a != b]


def test_late_ascii_boxes_are_each_their_calls_on_a_raw_process() -> None:
    target = resolve_target("cmd:" + " ".join(RELAYED))
    _stderrs(RELAYED, target.lateness)
    with RawServer(target, sandbox={}, timeout=60) as raw:
        raw.initialize()
        raw.stderr_now(wait=1)
        said = []
        for arguments in CALLS:
            raw.request("tools/call", {"name": "sequentialthinking", "arguments": arguments})
            said.append(ruled_box(raw.stderr_now()))
    assert said == [True, False] * (len(CALLS) // 2), said


_MARK = st.sampled_from("+*#=-─═")


@given(_MARK, _MARK, st.integers(3, 40), st.text(alphabet=st.characters(categories=("L", "N")), min_size=1))
def test_a_box_in_any_style_is_ruled_and_its_text_alone_is_not(edge: str, line: str, width: int,
                                                                  text: str) -> None:
    rule = f"{edge}{line * width}{edge}\n"
    assert ruled_box(f"\n{rule}| {text} |\n{rule}".encode())
    assert not ruled_box(f"{text}\n{line * width}\n".encode())


@given(_MARK, _MARK, st.integers(3, 40), st.text(alphabet=st.characters(categories=("L", "N")), min_size=1),
       st.integers(1, 3))
def test_late_boxes_in_any_style_are_whole_at_their_last_rule(edge: str, line: str, width: int, text: str,
                                                               due: int) -> None:
    """A late box's wait ends when its bottom rule arrives, not a quiet period later on every call: `due`
    boxes of three rules each are whole; cut after any earlier rule (the top, the middle) they are not."""
    rule = f"{edge}{line * width}{edge}\n"
    box = f"\n{rule}| {text} |\n{rule}| {text} |\n{rule}"
    assert ruled_complete((box * due).encode(), due)
    cut = box * (due - 1) + box[: box.rindex(rule)]
    assert not ruled_complete(cut.encode(), due)
