"""benchmarks/think_time.py against the tiny test server: each think time gets its row of measured round
trips, the busy work takes the time asked, and bad options are refused in one line."""

from __future__ import annotations

import shlex
import time

import pytest

from benchmarks.bench_drivers import BareLoop
from benchmarks.think_time import busy, main, measure, render
from conformance.targets.specs import resolve_target
from tests.servers import command


def test_each_think_time_gets_a_row_of_measured_round_trips() -> None:
    loop = BareLoop(resolve_target("cmd:" + shlex.join(command("mini"))), drain_stderr=True)
    try:
        rows = measure(loop, [0.0, 0.5], calls=5, repetitions=2)
    finally:
        loop.close()
    assert [row.think_ms for row in rows] == [0.0, 0.5]
    assert all(0 < row.lowest_us <= row.round_trip_us <= row.highest_us for row in rows)
    table = render("cmd:mini", rows)
    assert "| 0.5 ms |" in table and "slowest row / first row:" in table


def test_busy_work_lasts_what_it_is_asked() -> None:
    began = time.perf_counter()
    busy(0.02)
    assert time.perf_counter() - began >= 0.02


@pytest.mark.parametrize("think", ["x", "-1", "", "2000"])
def test_bad_think_times_are_refused(think: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--target", "cmd:true", "--think-ms", think])
    assert stopped.value.code == 2
    assert "--think-ms" in capsys.readouterr().err
