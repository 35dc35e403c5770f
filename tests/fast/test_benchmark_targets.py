"""The benchmark's target table states the reference/original wall ratio of the runs it measured."""

from __future__ import annotations

from benchmarks.figures import Benchmarks, RunFigures, RunSection
from benchmarks.run import ORIGINAL, target_checks


def _run(target: str, wall: float, jobs: int = 1) -> RunFigures:
    return RunFigures.model_construct(
        target=target, profile="dev", jobs=jobs, median_wall_s=wall, processes_started=9
    )


def _checks(*runs: RunFigures) -> dict[str, tuple[float, bool]]:
    section = RunSection.model_construct(runs=list(runs), parallel=None)
    result = Benchmarks.model_construct(
        drivers=None, servers=None, run=section, memory=None, compare=None, atlas=None
    )
    return {check.name: (check.measured, check.met) for check in target_checks(result)}


def test_the_ratio_of_the_serial_runs_is_checked_against_1_2() -> None:
    name = f"run reference / {ORIGINAL} dev (wall)"
    assert _checks(_run("reference", 12.0), _run(ORIGINAL, 10.0))[name] == (1.2, True)
    measured, met = _checks(_run("reference", 13.0), _run(ORIGINAL, 10.0), _run(ORIGINAL, 1.0, jobs=2))[name]
    assert (round(measured, 2), met) == (1.3, False)


def test_no_ratio_without_both_targets() -> None:
    assert not any("/" in name for name in _checks(_run("reference", 12.0)))
