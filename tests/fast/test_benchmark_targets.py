"""The benchmark's target table states the reference/original wall ratio of the runs it measured."""

from __future__ import annotations

import sys
from pathlib import Path

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


def test_a_target_stopped_at_its_preflight_is_timed_not_refused(tmp_path: Path) -> None:
    """A third-party server offering no `sequentialthinking` (mcp-sequential-thinking 0.7.0) stops its gate
    with exit 2: the benchmark ended there ("mst: exit status 2") instead of timing what its maintainer
    waits for. Driven on a real renamed port (tests/servers/ports.py renamed)."""
    from benchmarks.red_green import Contender, profiled

    ports = Path(__file__).resolve().parent.parent / "servers" / "ports.py"
    timed = profiled(Contender("renamed", f"cmd:{sys.executable} {ports} renamed"), "dev", 1,
                     tmp_path / "run", 0)
    assert timed.exit_code == 2 and timed.departures >= 1 and timed.wall_s > 0, timed
