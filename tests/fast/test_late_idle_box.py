"""A box a relay forwards after the settle's limit is its call's, not something the process wrote while it
waited: through `tests/servers/late_stderr.py` at load 20, the sorted fork's last box reached the pipe
after its process went back to the pool, and ABS-10's idle check read it as written between calls ("new
ABS-10" under relay seed 11, held-out-multi-15's flap table, issue 43). A process's boxes its answers
said were drawn and its stderr had not closed are owed; nothing but those, arriving while it waits, is no
speech of its own. Simulated by a relay 1.5 s late (the settle waits 1 s at most) on real processes; a
heartbeat is still heard.
"""

from __future__ import annotations

import sys
import time

from hypothesis import given
from hypothesis import strategies as st

from conformance.drivers.wire import SETTLE_LIMIT, whole_boxes
from conformance.suite.rawproc import RawPool
from conformance.targets.specs import Target, resolve_target
from tests.cli import REPO

DELAY_MS = 1500
LATE_RELAY = [sys.executable, str(REPO / "tests" / "servers" / "late_stderr.py"), "--delay-ms",
              f"{DELAY_MS},{DELAY_MS}", "--", sys.executable, "-m", "reference_server"]
"""The reference behind a relay forwarding its stderr 1.5 s late: later than any settle waits."""
HEARTBEAT = [sys.executable, str(REPO / "tests" / "servers" / "heartbeat.py"), "400"]
"""The reference writing a heartbeat line every 0.4 s, calls or none."""
THOUGHT = {"thought": "plan", "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": True}


def _idle_after_a_call(target: Target, *, idle: float) -> list[tuple[float, bytes]]:
    """One call on a pooled process, its start-up stderr read first; what it said while it then waited."""
    pool = RawPool(timeout=60)
    try:
        with pool.lend(target) as raw:
            raw.initialize()
            raw.stderr_now(wait=DELAY_MS / 1000 + 1)
            raw.request("tools/call", {"name": "sequentialthinking", "arguments": THOUGHT})
        time.sleep(idle)
        return pool.spoke_waiting(target)
    finally:
        pool.close()


def test_a_box_arriving_after_the_process_went_back_to_the_pool_is_not_idle_speech() -> None:
    assert DELAY_MS / 1000 > SETTLE_LIMIT, "the relay must be later than the settle waits to test anything"
    spoke = _idle_after_a_call(resolve_target("cmd:" + " ".join(LATE_RELAY)), idle=DELAY_MS / 1000 + 1)
    assert spoke == [], spoke


def test_a_heartbeat_while_waiting_is_still_heard() -> None:
    spoke = _idle_after_a_call(resolve_target("cmd:" + " ".join(HEARTBEAT)), idle=1.5)
    assert spoke and b"heartbeat" in spoke[0][1], spoke


_LINES = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=20)


def _box(header: str, thought: str) -> str:
    width = max(len(header), len(thought)) + 2
    return (f"┌{'─' * width}┐\n│ {header.ljust(width - 2)} │\n├{'─' * width}┤\n"
            f"│ {thought.ljust(width - 2)} │\n└{'─' * width}┘\n")


@given(st.lists(st.tuples(_LINES, _LINES), min_size=1, max_size=4), st.booleans())
def test_whole_boxes_counts_boxes_and_only_boxes(boxes: list[tuple[str, str]], blank: bool) -> None:
    drawn = ("\n" if blank else "").join(_box(h, t) for h, t in boxes)
    assert whole_boxes(drawn.encode()) == len(boxes)
    assert whole_boxes((drawn + "heartbeat: alive\n").encode()) == 0
    assert whole_boxes(("tick\n" + drawn).encode()) == 0
    assert whole_boxes(drawn.encode()[:-2]) == 0
