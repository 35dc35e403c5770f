"""Where a green run's wall time goes, read back from runs `red_green.py` made (issue 46: the reference within
1.2x the original): per run, the server's answers (exchanges on its transcripts, summed send-to-answer
seconds), the preflight's stdout watch, and the CPU of the harness and of the servers (`phases.py`).

    python -m benchmarks.green_waits RUNS_DIR [RUNS_DIR ...]

RUNS_DIR is red_green's `--out`/runs folder; each run folder there (NAME with NAME.phases.json beside it) is
one row. Send-to-answer is the time from a frame sent to the next frame received on the same process (a
pipelined batch counts once). The watch's cost is from the preflight's last answer to the end of its window
(`preflight._window`: QUIET_AFTER_START after the start, QUIET_AFTER_HANDSHAKE after the handshake,
QUIET_AFTER_ANSWER after the last answer), computed from its transcript's times.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from conformance.cli.runner.preflight import QUIET_AFTER_ANSWER, QUIET_AFTER_HANDSHAKE, QUIET_AFTER_START

_MAX_LINES: Final = 2_000_000
"""Transcript lines read per file at most (a run writes a few thousand)."""
NAN: Final = float("nan")


def _events(path: Path) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    with path.open(encoding="utf-8", errors="replace") as lines:
        for count, line in enumerate(lines):
            if count >= _MAX_LINES:
                break
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and isinstance(event.get("t"), int | float):
                events.append(event)
    return events


def answer_times(transcripts: Path) -> list[float]:
    """Seconds from each frame sent to the next frame received on the same process, every transcript."""
    waits: list[float] = []
    for path in sorted(transcripts.glob("*.jsonl")):
        sent: dict[object, float] = {}
        for event in _events(path):
            pid = event.get("pid")
            if event.get("kind") == "sent":
                sent.setdefault(pid, float(event["t"]))
            elif event.get("kind") == "received" and pid in sent:
                waits.append(float(event["t"]) - sent.pop(pid))
    return waits


def watch_cost(preflight: Path) -> float | None:
    """Seconds the preflight's stdout watch ran past its last answer (None: no answer in its transcript)."""
    events = _events(preflight) if preflight.is_file() else []
    started = next((float(e["t"]) for e in events if e.get("kind") == "note"), None)
    answers = [float(e["t"]) for e in events if e.get("kind") == "received"]
    if started is None or not answers:
        return None
    until = max(started + QUIET_AFTER_START, answers[0] + QUIET_AFTER_HANDSHAKE,
                answers[-1] + QUIET_AFTER_ANSWER)
    return until - answers[-1]


def row(run: Path) -> str:
    phases_file = run.with_name(run.name + ".phases.json")
    phases = json.loads(phases_file.read_text()) if phases_file.is_file() else {}
    waits = answer_times(run / "transcripts")
    watch = watch_cost(run / "transcripts" / "preflight.jsonl")
    median = statistics.median(waits) * 1000 if waits else NAN
    wall, cpu, servers = (phases.get(key, NAN) for key in ("wall_s", "cpu_s", "servers_cpu_s"))
    watched = "n/a" if watch is None else f"{watch:.2f}"
    return (f"| {run.name} | {wall:.1f} | {cpu:.1f} | {servers:.2f} | {len(waits)} | {sum(waits):.2f} | "
            f"{median:.3f} | {watched} |")


def main(argv: Sequence[str] | None = None) -> int:
    folders = [Path(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    print("| run | wall s | harness CPU s | servers CPU s | exchanges | send-to-answer s | median ms "
          "| watch s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for folder in folders:
        for run in sorted(p for p in folder.iterdir() if p.is_dir() and (p / "transcripts").is_dir()):
            print(row(run))
    return 0


if __name__ == "__main__":
    sys.exit(main())
