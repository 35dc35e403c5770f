"""A server whose stderr is never late is never taken for one that is: stderr the driver reads between calls
teaches that a command's calls must wait for their late lines only when it can be the last call's, late. A
frame written raw (the cancellation probe's call, a replayed witness) has its box read with that frame's
answer, and a flood's rest (npm:0.6.2 renders a 1 MiB thought partly after its answer) is the rest of one
write: before, either made every later call owing no box of the run wait a quiet period (a green dev run on
npm:0.6.2 waited 6 s so, on 60 calls). Counted waits on real processes, no clock asserted.
"""

from __future__ import annotations

import json
import sys
from typing import Final

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.drivers.lateness import PROBES, Lateness
from conformance.drivers.wire import SETTLE_BYTES, SETTLE_LIMIT, WireDriver, boxes_complete
from tests.cli import REPO

REFERENCE: Final = [sys.executable, "-m", "reference_server"]
"""The reference: every box written before its answer, nothing on a refusal."""
LARGE_TAIL: Final = [sys.executable, str(REPO / "tests" / "servers" / "reference_fork.py"), "large-tail"]
"""The reference writing the last 4 KiB of a box over 64 KiB 20 ms after its answer, as node does."""
SLOW_TAIL: Final = [sys.executable, str(REPO / "tests" / "servers" / "reference_fork.py"), "slow-tail"]
"""The reference writing each box's last quarter 1.5 s after its answer: past the wait for an open box."""
TOOL: Final = "sequentialthinking"
ACCEPTED: Final[dict[str, JSON]] = {"thought": "plan", "thoughtNumber": 1, "totalThoughts": 3,
                                    "nextThoughtNeeded": True}
REFUSED: Final[dict[str, JSON]] = {"thought": "", "thoughtNumber": 1}
REFUSALS: Final = 12
"""Refusals after the untracked stderr: past `PROBES`, each would wait once the command was taken for late."""


def _raw_call(driver: WireDriver, request_id: int, arguments: dict[str, JSON]) -> None:
    """A tools/call written raw and its answer read apart, as the cancellation probe and the evidence's
    replays do."""
    frame = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
             "params": {"name": TOOL, "arguments": arguments}}
    driver.send_raw(json.dumps(frame).encode() + b"\n")
    while json.loads(driver.read_frame()).get("id") != request_id:
        pass


def _refusal_waits(driver: WireDriver) -> int:
    before = driver.stderr_line_waits
    for _ in range(REFUSALS):
        assert driver.call_tool(TOOL, REFUSED).stderr == b""
    return driver.stderr_line_waits - before


STEPS = st.lists(st.sampled_from(["call", "refusal", "raw call", "raw refusal"]), min_size=1, max_size=6)


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(STEPS)
def test_raw_frames_never_teach_a_direct_server_late(steps: list[str]) -> None:
    """Calls and raw frames in any order on the direct reference: its refusals are waited for only while the
    run probes (`PROBES` in all), never as a command known late."""
    lateness = Lateness()
    with WireDriver(REFERENCE, timeout=60, lateness=lateness) as driver:
        driver.initialize()
        for number, step in enumerate(steps, start=100):
            arguments = ACCEPTED if step.endswith("call") else REFUSED
            if step.startswith("raw"):
                _raw_call(driver, number, arguments)
            else:
                driver.call_tool(TOOL, arguments)
        waits = _refusal_waits(driver)
        assert not lateness.known(REFERENCE)
        assert not driver.stderr_late_unboxed
        assert driver.stderr_line_waits <= PROBES
        assert waits <= PROBES


def test_a_floods_rest_never_teaches_a_direct_server_late() -> None:
    """A box of more than `SETTLE_BYTES` whose last bytes come after the answer (a flood: its call reads no
    further) is read whole by the next read of stderr, and its rest teaches nothing: the refusals after it
    wait only while probed."""
    thought = "0123456789abcdef" * (SETTLE_BYTES // 32)
    lateness = Lateness()
    with WireDriver(LARGE_TAIL, timeout=60, lateness=lateness) as driver:
        driver.initialize()
        mark = driver.stderr_mark()
        big = driver.call_tool(TOOL, {**ACCEPTED, "thought": thought})
        assert len(big.stderr) >= SETTLE_BYTES
        waits = _refusal_waits(driver)
        whole = driver.stderr_since(mark)
        assert whole.count("└".encode()) == 1 and whole.endswith("┘\n".encode())
        assert not lateness.known(LARGE_TAIL)
        assert waits <= PROBES


def test_a_box_begun_before_its_answer_and_closed_past_its_wait_never_teaches_late() -> None:
    """A box in the pipe at its answer and closed after its wait's bound (a large render written slowly on a
    loaded machine) is one write of its call, read whole once it settles: its rest teaches nothing, and the
    refusals after it wait only while probed."""
    lateness = Lateness()
    with WireDriver(SLOW_TAIL, timeout=60, lateness=lateness) as driver:
        driver.initialize()
        mark = driver.stderr_mark()
        cut = driver.call_tool(TOOL, ACCEPTED)
        assert not boxes_complete(cut.stderr, 1), f"closed within {SETTLE_LIMIT:g} s: the tail came too soon"
        whole, slow = driver.stderr_until(mark, lambda data: boxes_complete(data, 1), 30.0, 30.0)
        assert not slow and boxes_complete(whole, 1)
        waits = _refusal_waits(driver)
        assert not lateness.known(SLOW_TAIL)
        assert waits <= PROBES
