"""A server whose boxes stop after some thoughts is waited for a box a few times per process, not on every
later call, even where one of its boxes once came after its answer: held-out-multi-13's fork-session-tools
(boxes muted after 30 thoughts, one early box split around its answer) waited a quiet period on each of its
thousands of later calls, 1,012-1,651 s a run against 29-416 s for its set's other forks. Driven through a
relay forwarding stderr late: every box arrives after its answer."""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.drivers.wire import SETTLE_MISSES, WireDriver, boxes_complete
from conformance.suite.rawproc import RawServer
from conformance.targets.specs import resolve_target
from tests.cli import REPO
from tests.servers import command
from tests.servers.reference_fork import BOXES_SHOWN

MUTED = command("reference_fork", "boxes-muted")
RELAYED = [sys.executable, str(REPO / "tests" / "servers" / "late_stderr.py"), "--delay-ms", "5,30", "--",
           *MUTED]
"""The muted fork behind a relay forwarding its stderr 5 to 30 ms late: each box it draws arrives late."""


def _thought(number: int) -> dict[str, JSON]:
    return {"thought": f"t{number}", "thoughtNumber": number, "totalThoughts": 40, "nextThoughtNeeded": True}


@settings(max_examples=4, deadline=None)
@given(later=st.integers(min_value=SETTLE_MISSES + 1, max_value=4 * SETTLE_MISSES))
def test_a_relayed_server_whose_boxes_stop_is_waited_for_a_few_times(later: int) -> None:
    """Every box the relay forwards is read whole in its own call and taken as late; after the boxes stop,
    `SETTLE_MISSES` calls wait for one, however many calls follow."""
    with WireDriver(RELAYED, timeout=60) as driver:
        driver.initialize()
        stderrs = [driver.call_tool("sequentialthinking", _thought(n)).stderr
                   for n in range(1, BOXES_SHOWN + later + 1)]
        late, waits = driver.stderr_late, driver.stderr_box_waits
    for number, stderr in enumerate(stderrs[:BOXES_SHOWN], 1):
        assert boxes_complete(stderr, 1) and f"t{number}".encode() in stderr, stderr
    assert not any(stderrs[BOXES_SHOWN:]), stderrs[BOXES_SHOWN:]
    assert late == BOXES_SHOWN, f"{late} boxes taken as late, of {BOXES_SHOWN} forwarded late"
    assert waits == BOXES_SHOWN + SETTLE_MISSES, (
        f"{waits} waits for a box over {BOXES_SHOWN + later} calls, {BOXES_SHOWN} of them boxed")


def test_a_raw_process_of_a_relayed_server_whose_boxes_stop_waits_a_few_times() -> None:
    """The suite's raw processes wait as the wire driver does."""
    calls = BOXES_SHOWN + 4 * SETTLE_MISSES
    with RawServer(resolve_target("cmd:" + " ".join(RELAYED)), sandbox={}) as raw:
        raw.initialize()
        for number in range(1, calls + 1):
            raw.request("tools/call", {"name": "sequentialthinking", "arguments": _thought(number)})
        waits = raw.box_waits
    assert waits == BOXES_SHOWN + SETTLE_MISSES, f"{waits} waits for a box over {calls} calls"

