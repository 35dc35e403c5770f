"""What a server writes is bounded by the harness, not by the server: a frame over the limit is a typed error
and reading stops there, stderr is kept as its head and tail with the rest counted, transcripts are capped
with a visible mark, and memory stays flat whatever the server does (servers in tests/servers/)."""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest

from conformance.drivers.errors import DriverError, ServerTimeout
from conformance.drivers.sdk import SdkDriver
from conformance.drivers.transcript import KEEP_CHARS, Transcript
from conformance.drivers.wire import WireDriver
from tests.servers import OVERRUN, PATIENT, VALID, assert_gone, command, wait_for_stderr

MiB = 1 << 20
TRICKLED_CALLS = 6
"""Calls to the stderr trickle: its stderr is never quiet, so most calls wait out the whole settle limit (a
second each). The bound on its events grows with the frames and the bytes written (six calls: 45 events, 15
frames, 2.7 MB written, a bound of 60), so six calls test it as the twenty it once made did, in a third of
the time."""


def _events(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("driver_class", [WireDriver, SdkDriver], ids=["wire", "sdk"])
def test_stdout_without_a_newline_is_an_error_at_the_frame_limit_and_memory_stays_flat(
    driver_class: type[WireDriver] | type[SdkDriver],
) -> None:
    tracemalloc.start()
    try:
        with driver_class(command("stdout_flood", "no-newline", "48"), timeout=PATIENT) as driver:
            if isinstance(driver, WireDriver):
                driver.initialize()
            started = time.monotonic()
            with pytest.raises(DriverError, match=r"frame over 16777216 bytes") as failure:
                driver.call_tool("sequentialthinking", VALID)
            seconds = time.monotonic() - started
            pid = driver.pid
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not isinstance(failure.value, ServerTimeout)
    assert seconds < PATIENT / 2, "reading stopped at the limit, not at the call's timeout"
    assert peak < 40 * MiB, f"{peak / MiB:.0f} MiB held for a 48 MiB flood"
    assert pid is not None
    assert_gone(pid)


def test_a_line_over_the_frame_limit_is_an_error_and_not_copied_into_the_transcript(tmp_path: Path) -> None:
    path = tmp_path / "transcript.jsonl"
    with (
        Transcript(path) as transcript,
        WireDriver(command("stdout_flood", "line", "48"), timeout=60, transcript=transcript) as driver,
    ):
        driver.initialize()
        with pytest.raises(DriverError, match=r"frame over 16777216 bytes"):
            driver.call_tool("sequentialthinking", VALID)
    assert path.stat().st_size < MiB
    notes = [e["data"] for e in _events(path) if e["kind"] == "note"]
    assert any("frame over 16777216 bytes" in str(n) for n in notes), notes


def test_a_frame_limit_can_be_set_per_driver() -> None:
    with WireDriver(command("stdout_flood", "line", "1"), timeout=60, max_frame=64 << 10) as driver:
        driver.initialize()
        with pytest.raises(DriverError, match=r"frame over 65536 bytes"):
            driver.call_tool("sequentialthinking", VALID)
    with WireDriver(command("stdout_flood", "line", "1"), timeout=60, max_frame=2 * MiB) as driver:
        driver.initialize()
        assert len(driver.call_tool("sequentialthinking", VALID).text or "") == MiB


def test_a_stderr_trickle_costs_a_few_transcript_events_not_one_per_read(tmp_path: Path) -> None:
    path = tmp_path / "transcript.jsonl"
    with (
        Transcript(path) as transcript,
        WireDriver(command("stderr_trickle"), timeout=60, transcript=transcript) as driver,
    ):
        driver.initialize()
        for _ in range(TRICKLED_CALLS):
            driver.call_tool("sequentialthinking", VALID)
            time.sleep(0.05)
    events = _events(path)
    frames = sum(1 for e in events if e["kind"] in ("sent", "received"))
    stderr = [e for e in events if e["kind"] == "stderr"]
    written = sum(len(str(e["data"])) for e in stderr)
    assert len(stderr) <= frames + written // (64 << 10) + 4, f"{len(stderr)} stderr events, {frames} frames"


def test_stderr_of_one_call_keeps_its_head_and_tail_and_counts_the_rest() -> None:
    with WireDriver(command("stderr_flood", "--mb", "40"), timeout=PATIENT) as driver:
        driver.initialize()
        exchange = driver.call_tool("sequentialthinking", VALID)
    assert exchange.text == "ok"
    assert len(exchange.stderr) < 18 * MiB
    assert exchange.stderr_dropped == 40 * MiB - 17 * MiB
    assert f"[{exchange.stderr_dropped} bytes of stderr not kept]".encode() in exchange.stderr


def test_a_process_stderr_keeps_its_first_bytes_through_a_flood() -> None:
    with WireDriver(command("stderr_flood", "--forever"), timeout=PATIENT, stderr_limit=MiB) as driver:
        driver.initialize()
        with pytest.raises(ServerTimeout):
            driver.call_tool("sequentialthinking", VALID, timeout=2.0)
        # Bounded wait for the flood to pass the limit (it goes on after the timeout), not a bet on 2 s.
        kept = wait_for_stderr(driver, b"bytes of stderr not kept]")
    assert kept.startswith(b"stderr_flood: starting\n")
    assert b"bytes of stderr not kept]" in kept
    assert len(kept) < 2 * MiB


def _cap_noted(path: Path) -> bool:
    """Whether the transcript's last line is its note that the cap was reached (nothing is written after it
    until it is closed)."""
    with path.open("rb") as file:
        file.seek(max(0, path.stat().st_size - 4096))
        return b"transcript cap of" in file.read()


def test_a_frame_flood_is_a_timeout_with_a_capped_transcript(tmp_path: Path) -> None:
    path = tmp_path / "transcript.jsonl"
    with (
        Transcript(path, max_bytes=MiB) as transcript,
        WireDriver(command("stdout_flood", "frames"), timeout=PATIENT, transcript=transcript) as driver,
    ):
        driver.initialize()
        # Frames are read only while a call waits: call again (each a 2 s timeout) until the cap was reached
        # (its note written) or passed, within a bounded deadline, instead of betting that a loaded machine
        # read 1 MiB within one call. A capped file stays under the cap, so its size alone never ended the
        # loop: every run waited out the deadline (30 s of CI).
        deadline = time.monotonic() + OVERRUN
        while True:
            with pytest.raises(ServerTimeout):
                driver.call_tool("sequentialthinking", VALID, timeout=2.0)
            transcript.flush()
            if _cap_noted(path) or path.stat().st_size > MiB or time.monotonic() >= deadline:
                break
    size = path.stat().st_size
    assert size < MiB + 4096
    notes = [str(e["data"]) for e in _events(path) if e["kind"] == "note"]
    assert any("transcript cap of 1048576 bytes reached" in n for n in notes), notes[-3:]
    assert "not written" in notes[-1], notes[-1]


def test_an_excerpt_for_a_report_is_bounded_and_says_what_it_left_out() -> None:
    transcript = Transcript()
    mark = transcript.mark()
    for _ in range(300):
        transcript.record("stderr", "x" * (64 << 10))
        transcript.record("sent", "{}")
    excerpt = transcript.excerpt(mark)
    assert sum(len(e.data) for e in excerpt) <= 64 << 10
    assert excerpt[0].kind == "note" and "left out" in excerpt[0].data
    assert excerpt[-1].kind == "sent"


def test_a_transcript_holds_a_bounded_amount_of_event_data_in_memory() -> None:
    transcript = Transcript(keep=2000)
    for _ in range(400):
        transcript.record("received", "x" * (64 << 10))
    held = transcript.events
    assert sum(len(e.data) for e in held) <= KEEP_CHARS < 400 * (64 << 10)
    assert len(transcript) == 400 and held[-1].seq == 399
