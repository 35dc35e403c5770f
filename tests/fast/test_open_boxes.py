"""A server whose boxes never complete as the original's (a fork drawing its own) costs a run no more than one
writing no box: after `SETTLE_MISSES` waits in a row that ended without the call's boxes complete, a call's
late stderr is waited for `SETTLE_QUIET` at most (issue 46: one such fork spent 209 s of a 319 s run waiting a
second a call)."""

from __future__ import annotations

import sys

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.drivers.wire import SETTLE_LIMIT, SETTLE_MISSES, SETTLE_QUIET, WireDriver, settle_waits
from tests.servers import HERE

REFERENCE = [sys.executable, "-m", "reference_server"]
OPEN = [sys.executable, str(HERE / "late_stderr.py"), "--drop-bottoms", "--", *REFERENCE]
"""The reference behind a relay that forwards its stderr at once, without each box's bottom border."""


@given(quiet=st.floats(0.0, 1.0), limit=st.floats(0.0, 5.0), unfinished=st.integers(0, 10))
def test_only_waits_that_never_finish_a_box_shorten_the_next(
    quiet: float, limit: float, unfinished: int
) -> None:
    waits = settle_waits(quiet, limit, unfinished=unfinished)
    expected = ((min(quiet, SETTLE_QUIET), min(limit, SETTLE_QUIET)) if unfinished >= SETTLE_MISSES
                else (quiet, limit))
    assert waits == expected, (waits, quiet, limit, unfinished)


def _calls(command: list[str], count: int) -> tuple[list[bytes], WireDriver]:
    with WireDriver(command, timeout=20) as driver:
        driver.initialize()
        driver.stderr_settled(5.0)
        said = [driver.call_tool("sequentialthinking", _thought(n, count)).stderr
                for n in range(1, count + 1)]
        return said, driver


def _thought(n: int, count: int) -> dict[str, JSON]:
    return {"thought": f"thought {n}", "thoughtNumber": n, "totalThoughts": count,
            "nextThoughtNeeded": n < count}


def test_boxes_left_open_are_read_whole_and_counted_as_unfinished_waits() -> None:
    count = SETTLE_MISSES + 4
    expected, _ = _calls(REFERENCE, count)
    got, driver = _calls(OPEN, count)
    bottom = "└".encode()
    bottomless = [b"".join(line for line in box.splitlines(keepends=True) if not line.startswith(bottom))
                  for box in expected]
    differ = [i for i, (a, b) in enumerate(zip(bottomless, got, strict=True)) if a != b]
    assert not differ, f"calls {differ} differ, first: {bottomless[differ[0]]!r} against {got[differ[0]]!r}"
    assert driver.unfinished_waits == count, driver.unfinished_waits
    assert SETTLE_QUIET < SETTLE_LIMIT


def test_a_relays_late_boxes_finish_its_waits() -> None:
    """Through a relay forwarding stderr 5-30 ms late, every wait completes its box: none is left unfinished,
    so the relay's calls keep their full wait."""
    late = [sys.executable, str(HERE / "late_stderr.py"), "--", *REFERENCE]
    got, driver = _calls(late, SETTLE_MISSES + 4)
    expected, _ = _calls(REFERENCE, SETTLE_MISSES + 4)
    assert got == expected
    assert driver.unfinished_waits == 0, driver.unfinished_waits
