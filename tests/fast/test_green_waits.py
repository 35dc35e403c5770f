"""benchmarks/green_waits.py reads a run's transcripts back: send-to-answer per process, and the preflight
watch's cost past its last answer (the figures issue 46's reference/original ratio is explained by)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.green_waits import answer_times, watch_cost
from conformance.cli.runner.preflight import QUIET_AFTER_HANDSHAKE


def _write(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(event) + "\n" for event in events) + "not json\n")
    return path


def test_each_process_waits_from_its_first_frame_sent_to_its_next_frame_received(tmp_path: Path) -> None:
    _write(tmp_path / "a.jsonl", [
        {"kind": "sent", "t": 1.0, "pid": 1}, {"kind": "sent", "t": 1.5, "pid": 2},
        {"kind": "sent", "t": 1.1, "pid": 1},  # pipelined: counted from the first
        {"kind": "received", "t": 2.0, "pid": 2}, {"kind": "received", "t": 3.0, "pid": 1},
        {"kind": "received", "t": 3.5, "pid": 1},  # nothing sent since: no wait
    ])
    assert answer_times(tmp_path) == [0.5, 2.0]


def test_the_watch_runs_past_the_last_answer_to_the_end_of_its_window(tmp_path: Path) -> None:
    path = _write(tmp_path / "preflight.jsonl", [
        {"kind": "note", "t": 10.0, "data": "started pid 1"}, {"kind": "received", "t": 12.0, "pid": 1},
        {"kind": "received", "t": 12.3, "pid": 1},
    ])
    assert watch_cost(path) == pytest.approx(QUIET_AFTER_HANDSHAKE - 0.3)
    assert watch_cost(tmp_path / "missing.jsonl") is None
