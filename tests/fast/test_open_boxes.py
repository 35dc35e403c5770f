"""A server whose boxes never close in the original's borders (more tops than bottoms, as a fork drawing its
own box does) costs a run no more than one writing no box: after `SETTLE_MISSES` waits on an open box that
found nothing late, its calls' stderr is waited for as quiet stderr, not to the settle limit (issue 46: one
such fork spent 209 s of a run waiting a second a call)."""

from __future__ import annotations

import sys

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.drivers.wire import SETTLE_LIMIT, SETTLE_MISSES, SETTLE_QUIET, WireDriver, settle_limit
from tests.servers import HERE

REFERENCE = [sys.executable, "-m", "reference_server"]
OPEN = [sys.executable, str(HERE / "late_stderr.py"), "--drop-bottoms", "--", *REFERENCE]
"""The reference behind a relay that forwards its stderr at once, without each box's bottom border."""


@given(limit=st.floats(0.0, 5.0), quiet=st.floats(0.0, 1.0), open_box=st.booleans(),
       misses=st.integers(0, 10), late=st.integers(0, 3))
def test_only_a_box_found_open_often_and_never_late_is_waited_for_as_quiet_stderr(
    limit: float, quiet: float, open_box: bool, misses: int, late: int
) -> None:
    waited = settle_limit(limit, quiet, open_box=open_box, open_misses=misses, late=late)
    shortened = open_box and misses >= SETTLE_MISSES and not late
    assert waited == (min(limit, quiet) if shortened else limit), (waited, limit, quiet)


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


def test_boxes_left_open_are_read_whole_and_counted_as_open_misses() -> None:
    count = SETTLE_MISSES + 4
    expected, _ = _calls(REFERENCE, count)
    got, driver = _calls(OPEN, count)
    bottom = "└".encode()
    bottomless = [b"".join(line for line in box.splitlines(keepends=True) if not line.startswith(bottom))
                  for box in expected]
    differ = [i for i, (a, b) in enumerate(zip(bottomless, got, strict=True)) if a != b]
    assert not differ, f"calls {differ} differ, first: {bottomless[differ[0]]!r} against {got[differ[0]]!r}"
    assert driver.stderr_late == 0 and driver.open_misses >= SETTLE_MISSES, (driver.stderr_late,
                                                                              driver.open_misses)
    assert SETTLE_QUIET < SETTLE_LIMIT
