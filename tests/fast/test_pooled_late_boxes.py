"""A box still on its way when a check gives its process back is the check's call's, not written while the
process waited (issue 43).

Through a stderr relay a call's box reaches the pipe after its answer. A check reading its answers itself
(LOOP-A's calls written at once, each answer read as a line) gave the process back before the boxes came; they
came while it waited in the pool, and ABS-10's idle check read them as the server writing between calls
(held-out-multi-16's fork-wire-hygiene through the relay, seed 11: "a process left waiting for a call wrote
“┌────…” to stderr"). Real processes: the reference behind tests/servers/late_stderr.py.
"""

from __future__ import annotations

import json
import shlex
import sys

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance.core.protocol import TOOL
from conformance.suite.rawproc import RawPool
from conformance.targets.specs import resolve_target
from tests.cli import REPO

RELAYED = [sys.executable, str(REPO / "tests" / "servers" / "late_stderr.py"), "--delay-ms", "80,120"]
"""The reference behind a relay forwarding its stderr 80 to 120 ms late, in pieces."""
HOLD = 1.0
"""How long the pool holds the process given back: past the relay's longest delay, twice."""


def _frame(request_id: int, thought: str) -> bytes:
    arguments = {"thought": thought, "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": True}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": TOOL, "arguments": arguments}}).encode() + b"\n"


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(calls=st.integers(min_value=1, max_value=4), width=st.integers(min_value=1, max_value=3000),
       seed=st.integers(min_value=0, max_value=99))
@example(calls=4, width=3000, seed=11)
def test_boxes_of_answers_a_check_read_itself_are_not_written_while_waiting(
        calls: int, width: int, seed: int) -> None:
    """Calls written at once, their answers read line by line, the process given back at once: its boxes are
    read before it waits, and nothing is heard while it is held idle (before: each box, "spoke waiting")."""
    target = resolve_target("cmd:" + shlex.join([*RELAYED[:2], "--seed", str(seed), *RELAYED[2:]]))
    pool = RawPool(timeout=20.0)
    try:
        with pool.lend(target) as raw:
            raw.initialize()
            raw.write(b"".join(_frame(100 + n, "t" * width) for n in range(calls)))
            answers = [raw.read_line() for _ in range(calls)]
        assert all(answer is not None and b'"result"' in answer for answer in answers), answers
        pool.hold_idle(target, HOLD)
        assert pool.spoke_waiting(target) == [], pool.spoke_waiting(target)
        assert raw.boxes_answered == calls and raw.boxes_read == calls, (raw.boxes_answered, raw.boxes_read)
    finally:
        pool.close()
