"""A relay slowed past one second still gives each call its own box, whole: a call owing a box used to wait
for it one fixed second at most, so a relay under load (a revision box cut at load ~34, issue 43) had the
box's rest read as the next call's stderr. The wait is now bounded by twice the lag the run learned on the
command (its banner's, a box's), `SETTLE_OPEN_LIMIT` at most. A real relay around the reference, its stderr
held 0.7 s a piece (each box in two pieces: done 1.4 s after its answer); compared with the direct reference.
"""

from __future__ import annotations

import sys
from typing import Final

from conformance.core.jsontypes import JSON
from conformance.drivers.lateness import Lateness
from conformance.drivers.wire import SETTLE_LIMIT, SETTLE_OPEN_LIMIT, WireDriver, box_bound
from tests.cli import REPO

REFERENCE: Final = [sys.executable, "-m", "reference_server"]
SLOWED: Final = [sys.executable, str(REPO / "tests" / "servers" / "late_stderr.py"), "--delay-ms", "700,700",
                 "--seed", "3", "--", *REFERENCE]
"""The reference behind a relay forwarding each stderr chunk in two pieces, each 0.7 s after the last."""
BANNER: Final = b"Sequential Thinking MCP Server running on stdio\n"
CALLS: Final[list[dict[str, JSON]]] = [
    {"thought": "plan", "thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": True},
    {"thought": "plan again", "thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": True,
     "isRevision": True, "revisesThought": 1},
    {"thought": "a branch", "thoughtNumber": 2, "totalThoughts": 3, "nextThoughtNeeded": False,
     "branchFromThought": 1, "branchId": "b"},
]


def _boxes(command: list[str]) -> list[bytes]:
    with WireDriver(command, timeout=60, lateness=Lateness()) as driver:
        driver.initialize()
        assert driver.stderr_settled(60.0) == BANNER
        return [driver.call_tool("sequentialthinking", arguments).stderr for arguments in CALLS]


def test_a_relay_slowed_past_a_second_gives_each_call_its_box_whole() -> None:
    direct = _boxes(REFERENCE)
    assert all(box.count("└".encode()) == 1 for box in direct)
    assert _boxes(SLOWED) == direct


def test_the_bound_follows_the_lag_learned() -> None:
    """A direct server (no lag) waits one `SETTLE_LIMIT` at most; a lagging one twice its lag, within
    `SETTLE_OPEN_LIMIT`."""
    assert box_bound(0.0) == box_bound(SETTLE_LIMIT / 2) == SETTLE_LIMIT
    assert box_bound(1.4) == 2.8
    assert box_bound(60.0) == SETTLE_OPEN_LIMIT
