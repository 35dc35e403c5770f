"""A red run's ratio to the green run is quoted beside the load each run met: one loaded round read a fork at
2.07x the green run while its imports stage, the same work in both, took 2.27x green's (npm:0.6.2 105.9 s,
imports 15.2 s; fork-hardened-store 219.6 s, imports 34.5 s)."""

from __future__ import annotations

import sys
from pathlib import Path

from benchmarks.red_green import Contender, Result, Timed, floor, markdown, profiled


def _timed(name: str, wall: float, imports: float, search: float, load: float = 0.0) -> Timed:
    return Timed(tree="after", name=name, round=0, wall_s=wall, exit_code=0 if name == "green" else 1,
                 stages={"imports": imports, "search": search}, processes_started=9, calls_made=100,
                 examples=10, departures=0, command="", load=load)


def test_the_table_quotes_each_run_s_load_and_imports_beside_its_ratio() -> None:
    result = Result(command="python -m benchmarks.red_green", profile="dev", seed=1, rounds=1,
                    load=[18.5, 21.2],
                    runs=[_timed("green", 105.9, 15.2, 79.6, load=18.0),
                          _timed("fork", 219.6, 34.5, 141.3, load=31.5)])
    rows: dict[str, str] = {}
    for line in markdown(result).splitlines():  # the first table's rows: the runs, then processes by stage
        if line.startswith("| 1 |"):
            rows.setdefault(line.split(" | ")[2], line)
    assert "| 105.9 | 1.00 | 18.0 | 1.00 |" in rows["green"], rows
    assert "| 219.6 | 2.07 | 31.5 | 2.27 |" in rows["fork"], rows


def test_a_profiled_run_records_the_load_it_met(tmp_path: Path) -> None:
    """A real run (a renamed port stopping at its preflight, the cheapest whole run) carries the load sampled
    while it went on."""
    ports = Path(__file__).resolve().parent.parent / "servers" / "ports.py"
    timed = profiled(Contender("renamed", f"cmd:{sys.executable} {ports} renamed"), "dev", 1,
                     tmp_path / "run", 0)
    assert timed.load > 0.0, timed


def test_the_floor_of_a_server_failing_its_calls_is_its_start_alone() -> None:
    """A crashing or garbling server (a red target measured too) has a start and no call time: before, its
    floor raised on the first call and the whole benchmark ended without its table."""
    broken = Path(__file__).resolve().parent.parent / "servers" / "broken.py"
    for mode in ("crash", "garbage"):
        start_s, call_ms = floor(Contender(mode, f"cmd:{sys.executable} {broken} {mode}"))
        assert start_s > 0.0 and call_ms == 0.0, (mode, start_s, call_ms)
