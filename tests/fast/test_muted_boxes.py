"""A server whose boxes stop after some thoughts is waited for a box a few times per process, not on every
later call, even where one of its boxes was split around its answer (begun in the pipe, completed after):
held-out-multi-13's fork-session-tools (boxes muted after 30 thoughts, one early box split so) waited a quiet
period on each of its thousands of later calls, 1,012-1,651 s a run against 29-416 s for its set's other
forks. A box arriving whole after its answer (a relay's) still keeps every call waiting for its box."""

from __future__ import annotations

import sys

from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.drivers.wire import SETTLE_MISSES, WireDriver, boxes_complete
from tests.cli import REPO
from tests.servers import command
from tests.servers.reference_fork import BOXES_SHOWN


def _thought(number: int) -> dict[str, JSON]:
    return {"thought": f"t{number}", "thoughtNumber": number, "totalThoughts": 40, "nextThoughtNeeded": True}


def _calls(server: list[str], calls: int) -> tuple[list[bytes], int, int]:
    """Each call's stderr on one process, the calls made at once after the handshake; the calls taken as a
    box arriving late and the waits for a box."""
    with WireDriver(server, timeout=60) as driver:
        driver.initialize()
        stderrs = [driver.call_tool("sequentialthinking", _thought(n)).stderr for n in range(1, calls + 1)]
        return stderrs, driver.stderr_late, driver.stderr_box_waits


@settings(max_examples=4, deadline=None)
@given(later=st.integers(min_value=SETTLE_MISSES + 1, max_value=4 * SETTLE_MISSES),
       mode=st.sampled_from(["split-muted", "split-now-muted"]))
@example(later=SETTLE_MISSES + 1, mode="split-now-muted")
def test_a_server_whose_split_boxes_stop_is_waited_for_a_few_times(later: int, mode: str) -> None:
    """Every box split around its answer is read whole in its own call, each one still incomplete at its
    answer waited for and taken as completed late; after the boxes stop, `SETTLE_MISSES` calls wait for one,
    however many calls follow. Whether a half came before the answer was read is the machine's pace (under
    load a 20 ms split was found whole beside its answer: "4 boxes taken as completed late, of 5 split"), so
    what is held is what each outcome costs, not how many went each way; `split-now-muted` writes both
    halves before the answer, as a client slowed past the split sees every box."""
    stderrs, late, waits = _calls(command("reference_fork", mode), BOXES_SHOWN + later)
    for number, stderr in enumerate(stderrs[:BOXES_SHOWN], 1):
        assert boxes_complete(stderr, 1) and f"t{number} ".encode() in stderr, stderr
    assert not any(stderrs[BOXES_SHOWN:]), stderrs[BOXES_SHOWN:]
    assert late <= BOXES_SHOWN, f"{late} boxes taken as completed late, of {BOXES_SHOWN} split"
    assert waits == late + SETTLE_MISSES, (
        f"{waits} waits for a box over {BOXES_SHOWN + later} calls, {late} of them boxes completed late")


def test_a_relayed_server_whose_boxes_stop_keeps_waiting() -> None:
    """Through a relay each box arrives whole after its answer: a box that does not come may still be on its
    way, so every call owing one waits for it (the relay's guarantee, kept)."""
    relayed = [sys.executable, str(REPO / "tests" / "servers" / "late_stderr.py"), "--delay-ms", "5,30", "--",
               *command("reference_fork", "boxes-muted")]
    calls = BOXES_SHOWN + 2 * SETTLE_MISSES
    stderrs, late, waits = _calls(relayed, calls)
    for number, stderr in enumerate(stderrs[:BOXES_SHOWN], 1):
        assert boxes_complete(stderr, 1) and f"t{number} ".encode() in stderr, stderr
    # A box may still reach the pipe before a loaded client reads its answer: then it costs no wait.
    assert 1 <= late <= BOXES_SHOWN and waits == late + calls - BOXES_SHOWN, (late, waits)
