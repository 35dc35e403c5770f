"""A meeting (the spec records' client, `calls/meetings.py`) against the replies of issue 45
(tests/servers/hostile_replies.py): a batch answered with garbage or a 200,000-deep array, notifications
without end after a batch, a 100,000-tool listing. Each ends as the meeting's typed failure, within the call
timeout, with bounded memory; never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from conformance.calls.meetings import BATCH_FRAMES_KEPT, Meeting, meet
from conformance.core.eras import era_named
from conformance.drivers.wire import BEYOND_LIMITS, NOT_JSON_RPC
from tests.servers import OVERRUN, PATIENT, command

REPO = Path(__file__).resolve().parent.parent.parent
MiB = 1 << 20
TIMEOUT = 3.0
"""The deadline the endless chatter meets (the subject there); the other meetings wait `PATIENT`, which a
reply the reader refuses never reaches, however slow the machine."""


class _Server:
    def __init__(self, case: str) -> None:
        self.command: Sequence[str] = command("hostile_replies", case)
        self.env: Mapping[str, str] = {}
        self.renames: Mapping[str, str] = {}


def _met(case: str) -> tuple[Meeting, float, int]:
    tracemalloc.start()
    started = time.monotonic()
    try:
        meeting = meet(_Server(case), era_named("2025-06-18"), timeout=PATIENT)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return meeting, time.monotonic() - started, peak


def test_a_conforming_batch_reply_is_kept() -> None:
    meeting, _, _ = _met("deep-text")
    assert meeting.failure is None
    assert meeting.batch_frames and len(meeting.batch_frames) <= BATCH_FRAMES_KEPT


@pytest.mark.parametrize(("case", "said"), [
    ("batch-garbage", f"ProtocolViolation: {NOT_JSON_RPC} JSON"),
    ("batch-deep", f"ProtocolViolation: {BEYOND_LIMITS} (nests deeper than 128 levels)"),
    ("many-tools", f"ProtocolViolation: {BEYOND_LIMITS} (holds more than 100,000 values"),
])
def test_a_reply_the_reader_refuses_ends_the_meeting_with_its_reason(case: str, said: str) -> None:
    meeting, seconds, _ = _met(case)
    assert meeting.failure is not None and meeting.failure.startswith(said), meeting.failure
    assert seconds < PATIENT / 2, "ended at the reply, not at the timeout"
    assert meeting.answer("batch") == {"answer": [], "stopped": "ProtocolViolation"}


_CHATTER = """
import json, sys, time, tracemalloc
from conformance.calls.meetings import meet
from conformance.core.eras import era_named
from tests.servers import command

class Server:
    command = command("hostile_replies", "batch-chatter")
    env = {}
    renames = {}

tracemalloc.start()
started = time.monotonic()
meeting = meet(Server(), era_named("2025-06-18"), timeout=float(sys.argv[1]))
print(json.dumps([meeting.failure, time.monotonic() - started, tracemalloc.get_traced_memory()[1]]))
"""


def test_notifications_without_end_after_a_batch_end_at_one_deadline_with_bounded_memory() -> None:
    """In a child process, killed at its own deadline: the old reader restarted the call timeout on every
    frame and kept every one (4.3 GB at 63 s)."""
    try:
        done = subprocess.run([sys.executable, "-c", _CHATTER, str(TIMEOUT)], cwd=REPO, capture_output=True,
                              text=True, timeout=TIMEOUT + 2 * OVERRUN, check=True)
    except subprocess.TimeoutExpired:
        pytest.fail("the meeting did not end after notifications without end")
    failure, seconds, peak = json.loads(done.stdout)
    assert failure.startswith("ServerTimeout: no answer to 'ping after a batch' within 3s"), failure
    assert seconds < TIMEOUT + OVERRUN, "one deadline for the batch, not one per frame"
    assert peak < 64 * MiB, f"{peak / MiB:.0f} MiB held while notifications kept coming"
