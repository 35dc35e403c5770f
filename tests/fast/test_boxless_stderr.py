"""A server writing no box after its answers, but border characters and a line left open (bartoszkula-ts
echoes every thought so far, a hypothesis-drawn ─ among them), is waited for a box on its first calls only:
its red run once cost the settle limit per call (8.5x the green run). A box arriving late is still read
whole."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.drivers.wire import SETTLE_MISSES, WireDriver, boxes_complete, settle
from conformance.suite.rawproc import RawServer
from conformance.targets.specs import resolve_target
from tests.servers import OVERRUN, command

Reader = Callable[[float], bytes | None]
CALLS = 12
"""Four times the calls that teach the driver a server writes no box."""


def _thought(number: int, text: str) -> dict[str, JSON]:
    return {"thought": text, "thoughtNumber": number, "totalThoughts": CALLS, "nextThoughtNeeded": True}


def test_a_server_echoing_borders_without_a_box_is_waited_for_on_its_first_calls_only() -> None:
    """Every call's stderr holds a border (the first thought, echoed) and ends in a line the answer finds
    open: a box is waited for `SETTLE_MISSES` times, never taken as arriving late; each line is read whole."""
    with WireDriver(command("echo_history"), timeout=60) as driver:
        driver.initialize()
        thoughts = [_thought(n, "a rule ── drawn" if n == 1 else f"t{n}") for n in range(1, CALLS + 1)]
        stderrs = [driver.call_tool("sequentialthinking", thought).stderr for thought in thoughts]
        late, box_waits = driver.stderr_late, driver.stderr_box_waits
    assert late == 0, f"{late} calls taken for a box arriving late, from a server drawing none"
    assert box_waits == SETTLE_MISSES, f"{box_waits} waits for a box over {CALLS} calls"
    for number, stderr in enumerate(stderrs, 1):
        assert "─".encode() in stderr and stderr.endswith(f"Progress: {number} thoughts\n".encode()), stderr


def test_a_raw_process_of_a_server_echoing_borders_without_a_box_waits_on_its_first_calls_only() -> None:
    """The suite's raw processes wait as the wire driver does: a box `SETTLE_MISSES` times, then no more."""
    with RawServer(resolve_target("cmd:" + " ".join(command("echo_history"))), sandbox={}) as raw:
        raw.initialize()
        for number in range(1, CALLS + 1):
            arguments = _thought(number, "a rule ── drawn" if number == 1 else "t")
            raw.request("tools/call", {"name": "sequentialthinking", "arguments": arguments})
        assert raw.box_waits == SETTLE_MISSES, f"{raw.box_waits} waits for a box over {CALLS} calls"
        assert "─".encode() in raw.stderr_now(wait=OVERRUN)  # ends at the first bytes


def test_a_box_whose_bottom_arrives_after_the_quiet_period_is_read_whole_on_every_call() -> None:
    """The same echo of borders, beneath a real box whose bottom reaches the pipe 150 ms after the answer
    (past the quiet period): every call's box is whole in its own stderr, each taken as arriving late."""
    with WireDriver(command("echo_history", "--late-box", "150"), timeout=60) as driver:
        driver.initialize()
        stderrs = [driver.call_tool("sequentialthinking", _thought(n, f"── {n}")).stderr for n in range(1, 7)]
        late, box_waits = driver.stderr_late, driver.stderr_box_waits
    for number, stderr in enumerate(stderrs, 1):
        assert boxes_complete(stderr, 1) and f"│ ── {number} │\n".encode() in stderr, stderr
    assert late == box_waits == len(stderrs)


_PIECES = st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=8)


def _read(whole: bytes, cuts: list[int], held: bytearray) -> tuple[Reader, Callable[[], bytes]]:
    """`whole` arriving in pieces of the given sizes, the first found by the answer, then nothing (quiet):
    a `read_within` handing out the rest, and what is held so far."""
    pieces = []
    at = 0
    for size in cuts:
        pieces.append(whole[at:at + size])
        at += size
    pieces.append(whole[at:])
    first = pieces.pop(0)
    held.extend(first[:len(whole) - 1])  # the answer found it incomplete
    if rest := first[len(whole) - 1:]:
        pieces.insert(0, rest)

    def read_within(seconds: float) -> bytes | None:
        chunk = pieces.pop(0) if pieces and pieces[0] else None
        held.extend(chunk or b"")
        return chunk

    return read_within, lambda: bytes(held)


@settings(max_examples=60, deadline=None)
@given(st.text("─═━│ ab\n", max_size=60), _PIECES)
def test_border_characters_without_a_box_are_no_box_arriving_late(echo: str, cuts: list[int]) -> None:
    """However an echo of border characters (no corner) arrives, the wait does not take it for a late box."""
    held = bytearray()
    read_within, held_now = _read((echo + "\n").encode(), cuts, held)
    assert not settle(read_within, held_now, due=1, quiet=0.0, limit=5.0)


@settings(max_examples=60, deadline=None)
@given(st.text("─│ ab", max_size=20), _PIECES)
def test_a_box_completed_by_what_arrives_is_a_box_arriving_late(text: str, cuts: list[int]) -> None:
    """However a whole box arrives after the answer, in pieces, the wait reads it whole and says it came
    late."""
    whole = f"┌──┐\n│ {text} │\n└──┘\n".encode()
    held = bytearray()
    read_within, held_now = _read(whole, cuts, held)
    assert settle(read_within, held_now, due=1, quiet=0.0, limit=5.0)
    assert bytes(held) == whole
