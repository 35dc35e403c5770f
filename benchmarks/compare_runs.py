"""The cost of `python -m conformance compare A B` as a user pays it: wall time of a fresh CLI process,
and what the comparison found (from its report.json)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from benchmarks.figures import CompareFigures
from conformance.report.json import load_report

PAIRS: Final[tuple[tuple[str, str], ...]] = (
    ("npm:2026.8.31", "npm:0.6.2"),
    ("npm:2026.7.4", "npm:2025.12.18"),
    ("reference", "npm:0.6.2"),
)
COMPARE_TIMEOUT: Final = 600.0


def measure(
    pairs: Sequence[tuple[str, str]], profile: str, repetitions: int, seed: int, scratch: Path,
    say: Callable[[str], None],
) -> list[CompareFigures]:
    """Each pair `repetitions` times, each time a fresh `compare` process with the same seed."""
    figures: list[CompareFigures] = []
    for a, b in pairs:
        walls: list[float] = []
        found = None
        for repetition in range(repetitions):
            out = scratch / f"compare-{len(figures)}-{repetition}"
            say(f"compare: {a} vs {b}, {profile}, repetition {repetition + 1}/{repetitions}")
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "conformance", "compare", a, b, "--profile", profile,
                 "--seed", str(seed), "--out", str(out)],
                capture_output=True, text=True, timeout=COMPARE_TIMEOUT, check=False,
            )
            walls.append(time.perf_counter() - started)
            if done.returncode not in (0, 1):
                raise RuntimeError(f"compare {a} {b} exited {done.returncode}: {done.stderr[-500:]}")
            report = load_report(out / "report.json")
            assert report.comparison is not None
            found = (done.returncode, report)
        assert found is not None
        code, report = found
        comparison = report.comparison
        assert comparison is not None
        figures.append(
            CompareFigures(
                a=a,
                b=b,
                profile=profile,
                node_pair=a.startswith("npm:") and b.startswith("npm:"),
                median_wall_s=statistics.median(walls),
                walls_s=walls,
                exit_code=code,
                differences=len(comparison.differences),
                root_causes=len(report.root_causes),
                programs=comparison.programs,
                calls=comparison.calls,
                budget_reached=comparison.budget_reached,
            )
        )
    return figures
