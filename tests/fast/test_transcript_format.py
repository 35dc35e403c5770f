"""A transcript line is written directly (`Event.line`), not by the general JSON encoder; these hold it to
the bytes the encoder makes, which the replay and the report's excerpts read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

from hypothesis import given
from hypothesis import strategies as st

from conformance.drivers.transcript import Event, EventKind, Transcript


def _encoded(event: Event) -> bytes:
    return (json.dumps(event.to_json(), ensure_ascii=False) + "\n").encode("utf-8", errors="backslashreplace")


@given(
    st.integers(min_value=0, max_value=2**53),
    st.sampled_from(get_args(EventKind)),
    st.text(st.characters() | st.integers(0xD800, 0xDFFF).map(chr)),
    st.floats(allow_nan=False, allow_infinity=False) | st.integers(min_value=0, max_value=2**40),
    st.none() | st.integers(min_value=1, max_value=2**31 - 1),
)
def test_a_line_is_what_json_dumps_makes(
    seq: int, kind: EventKind, data: str, t: float, pid: int | None
) -> None:
    event = Event(seq, kind, data, t, pid)
    assert event.line() == _encoded(event)
    assert json.loads(event.line().decode("utf-8", errors="backslashreplace"))["seq"] == seq


def test_the_file_holds_each_event_line_and_counts_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Transcript(path, max_bytes=400) as transcript:
        transcript.record("sent", b'{"id":1}')
        transcript.record("stderr", b"\xff\xfe half a box \xe2\x94")
        transcript.record("received", "lone \udc80 surrogate")
        transcript.note("x" * 300)
        events = transcript.events
    lines = path.read_bytes().splitlines(keepends=True)
    assert lines[:3] == [_encoded(event) for event in events[:3]]
    assert b"transcript cap of 400 bytes reached" in lines[3]
    assert b"1 events" in lines[-1] and len(lines) == 5


def test_stderr_is_one_event_per_process_between_frames(tmp_path: Path) -> None:
    """Stderr of two processes arriving between frames: each process's own stretch, named by its pid."""
    path = tmp_path / "t.jsonl"
    with Transcript(path) as transcript:
        transcript.record("stderr", b"one ", pid=11)
        transcript.record("stderr", b"two", pid=11)
        transcript.record("stderr", b"other", pid=12)
        transcript.record("sent", b'{"id":1}', pid=11)
        transcript.note("a note names no process")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [(line["kind"], line["data"], line.get("pid")) for line in lines] == [
        ("stderr", "one two", 11), ("stderr", "other", 12), ("sent", '{"id":1}', 11),
        ("note", "a note names no process", None)]
