"""`compare` and `atlas` stop within seconds on SIGTERM: they pass the signal on to what they started (the
column run in flight, the servers), and leave a report that says "cancelled" (compare: never the previous
report beside the new transcripts)."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.cli import Started, cli
from tests.servers import tagged

STOP_WITHIN = 20.0


def wait_until(running: Started, ready: Callable[[], bool], what: str, timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        assert running.proc.poll() is None, f"ended before {what}: {''.join(running.lines)}"
        assert time.monotonic() < deadline, f"never {what}: {''.join(running.lines)}"
        time.sleep(0.1)


def _json(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def test_sigterm_stops_compare_with_a_cancelled_report_in_place_of_the_previous_one(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = cli("compare", "reference", "reference", "--profile", "dev", "--seed", "1", "--budget", "1",
                out=out)
    assert first.code == 0, first.stdout + first.stderr
    previous = _json(out / "report.json")
    assert previous["run"]["interrupted"] is None
    running = Started("compare", "reference", "reference", "--profile", "dev", "--seed", "2",
                      "--out", str(out))
    try:
        wait_until(running, lambda: any("search:" in line for line in running.lines), "searched")
        code, seconds = running.stop(signal.SIGTERM)
        assert code == 143, "".join(running.lines)
        assert seconds < STOP_WITHIN
        assert tagged(running.tag) == [], "servers left running"
        assert running.proc.stderr is not None and "Traceback" not in running.proc.stderr.read()
    finally:
        running.kill()
    report = _json(out / "report.json")
    assert report["run"]["interrupted"] == "cancelled by SIGTERM"
    assert report["harness"]["seed"] == "2"
    assert report["gate"]["passed"] is False
    assert "cancelled by SIGTERM" in (out / "report.md").read_text(encoding="utf-8")


def test_sigterm_stops_atlas_and_the_column_run_in_flight(tmp_path: Path) -> None:
    out = tmp_path / "atlas"
    column = out / "targets" / "reference"
    running = Started("atlas", "reference", "--profile", "dev", "--seed", "3", "--no-compare",
                      "--out", str(out))
    try:
        wait_until(running, lambda: "tests " in _column_log(tmp_path), "ran a test")
        code, seconds = running.stop(signal.SIGTERM)
        assert code == 143, "".join(running.lines)
        assert seconds < STOP_WITHIN
        assert tagged(running.tag) == [], "the column's run or its servers left running"
    finally:
        running.kill()
    assert _json(column / "report.json")["run"]["interrupted"] == "cancelled by SIGTERM"
    atlas = _json(out / "atlas.json")
    assert atlas["interrupted"] == "cancelled by SIGTERM"
    assert [c["exit_code"] for c in atlas["columns"]] == [143]
    assert ("stopped early — cancelled by SIGTERM; 1 column run(s) were stopped; no pair was compared"
            in (out / "atlas.md").read_text(encoding="utf-8"))


def _column_log(where: Path) -> str:
    """The column run's log while it runs: in the atlas's staging folder, not yet moved into its column."""
    return "".join(_text(path) for path in where.glob(".atlas.*/targets/.reference.run.log"))


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
