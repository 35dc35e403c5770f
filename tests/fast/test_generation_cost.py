"""benchmarks/generation.py: hypothesis' CPU per example is measured on examples the engine really ran,
the watch on examples ends with the measurement, and a strategy that draws more costs more than the engine
alone."""

from __future__ import annotations

import pytest

from benchmarks.generation import ENGINE, STRATEGIES, cost_per_example, main, measure, render
from conformance.calls import strategies
from conformance.suite import hypothesis_hooks


def test_the_engine_alone_is_measured_on_real_examples_and_stops_counting_after() -> None:
    listening = list(hypothesis_hooks._listeners)
    per_example = cost_per_example(examples=40, rounds=1)
    assert 0 < per_example < 1.0
    assert hypothesis_hooks._listeners == listening


def test_a_json_value_costs_more_than_the_engine_alone() -> None:
    rows = measure(["json_values"], examples=60, rounds=3)
    assert [name for name, _ in rows] == [ENGINE, "json_values"]
    assert rows[1][1] > rows[0][1] > 0
    assert "| json_values |" in render(rows)


def test_every_listed_strategy_is_one_of_the_suites() -> None:
    assert all(hasattr(strategies, name) for name in STRATEGIES)


def test_an_unknown_strategy_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--only", "no_such_strategy"])
    assert stopped.value.code == 2
    assert "--only" in capsys.readouterr().err
