"""A red run's ratio to the green run is quoted beside the load each run met: one loaded round read a fork at
2.07x the green run while its imports stage, the same work in both, took 2.27x green's (npm:0.6.2 105.9 s,
imports 15.2 s; fork-hardened-store 219.6 s, imports 34.5 s)."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from benchmarks.red_green import Contender, Result, Timed, adjusted, adjusted_ratios, markdown, profiled


def _timed(name: str, wall: float, imports: float, search: float, load: float = 0.0) -> Timed:
    return Timed(tree="after", name=name, round=0, wall_s=wall, exit_code=0 if name == "green" else 1,
                 stages={"imports": imports, "search": search}, processes_started=9, calls_made=100,
                 examples=10, departures=0, command="", load=load)


seconds = st.floats(min_value=1.0, max_value=500.0, allow_nan=False)


@given(green_wall=seconds, green_imports=seconds, red_wall=seconds, red_imports=seconds,
       slower=st.floats(min_value=1.0, max_value=8.0))
def test_a_run_slowed_by_the_machine_alone_keeps_its_load_adjusted_ratio(
        green_wall: float, green_imports: float, red_wall: float, red_imports: float, slower: float) -> None:
    """The machine slowing the red run `slower` times (every stage and its wall alike) changes its ratio to
    green by that much and its load-adjusted ratio not at all."""
    green = _timed("green", green_wall, green_imports, green_wall / 2)
    calm = _timed("fork", red_wall, red_imports, red_wall / 2)
    loaded = _timed("fork", red_wall * slower, red_imports * slower, red_wall * slower / 2)
    fair, fair_loaded = adjusted(calm, green), adjusted(loaded, green)
    assert fair is not None and fair_loaded is not None
    assert abs(fair_loaded - fair) <= 1e-9 * fair


def test_the_table_quotes_each_run_s_load_and_the_adjusted_ratio_beside_the_ratio() -> None:
    result = Result(command="python -m benchmarks.red_green", profile="dev", seed=1, rounds=1,
                    load=[18.5, 21.2],
                    runs=[_timed("green", 105.9, 15.2, 79.6, load=18.0),
                          _timed("fork", 219.6, 34.5, 141.3, load=31.5)])
    assert adjusted_ratios(result) == {"fork": [0.91]}
    text = markdown(result)
    row = next(line for line in text.splitlines() if line.startswith("| 1 | after | fork |"))
    assert "| 219.6 | 2.07 | 31.5 | 2.27 | 0.91 |" in row, row
    assert "median ratio to green fork 2.07; worst 2.07 (goal: at most 2.0); load-adjusted (by the imports" \
           " stage) fork 0.91." in text


def test_a_profiled_run_records_the_load_it_met(tmp_path: Path) -> None:
    """A real run (a renamed port stopping at its preflight, the cheapest whole run) carries the load sampled
    while it went on."""
    ports = Path(__file__).resolve().parent.parent / "servers" / "ports.py"
    timed = profiled(Contender("renamed", f"cmd:{sys.executable} {ports} renamed"), "dev", 1,
                     tmp_path / "run", 0)
    assert timed.load > 0.0, timed
