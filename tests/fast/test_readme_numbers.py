"""The times the README promises are the benchmark's: each figure it states is read beside the committed
output of `python -m benchmarks.run --only run` (`reports/benchmarks/run/benchmarks.json`), so a slower
harness or an edited sentence cannot leave a promise the benchmark no longer keeps."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
BENCHMARK = REPO / "reports" / "benchmarks" / "run" / "benchmarks.json"


def _medians() -> dict[tuple[str, str], float]:
    data: dict[str, Any] = json.loads(BENCHMARK.read_text(encoding="utf-8"))
    return {(r["target"], r["profile"]): float(r["median_wall_s"]) for r in data["run"]["runs"]
            if r["jobs"] == 1}


def _readme() -> str:
    return " ".join(README.read_text(encoding="utf-8").split())


def _close(said: float, measured: float) -> bool:
    """A rounded figure: within a second or 10 % of the median, whichever is wider."""
    return abs(said - measured) <= max(1.0, 0.1 * measured)


@pytest.mark.parametrize(
    ("phrase", "key"),
    [
        (r"first run against the Python reference server it ships \(about (\d+(?:\.\d+)?) s",
         ("reference", "dev")),
        (r"\*\*Run it\*\* \(about (\d+(?:\.\d+)?) s¹ with `--profile dev`", ("npm:0.6.2", "dev")),
        (r"`run --target reference` (\d+(?:\.\d+)?) s", ("reference", "dev")),
        (r"`run --target npm:0\.6\.2` (\d+(?:\.\d+)?) s \(dev\)", ("npm:0.6.2", "dev")),
        (r"`run --target npm:0\.6\.2` \d+(?:\.\d+)? s \(dev\) and (\d+(?:\.\d+)?) s \(ci\)",
         ("npm:0.6.2", "ci")),
    ],
)
def test_a_time_the_readme_states_is_the_benchmarks(phrase: str, key: tuple[str, str]) -> None:
    found = re.search(phrase, _readme())
    assert found is not None, f"the README no longer says {phrase!r}: update this test with it"
    said, measured = float(found.group(1)), _medians()[key]
    assert _close(said, measured), (
        f"README says {said:g} s for {key}, the benchmark measured {measured:.1f} s")


def test_half_as_long_again_under_ci_is_the_benchmarks_ratio() -> None:
    assert "takes about half as long again" in _readme()
    medians = _medians()
    ratio = medians["npm:0.6.2", "ci"] / medians["npm:0.6.2", "dev"]
    assert 1.25 <= ratio <= 1.75, f"ci / dev measured {ratio:.2f}, not about half as long again"


def test_the_readme_names_the_machine_the_benchmark_ran_on() -> None:
    machine = json.loads(BENCHMARK.read_text(encoding="utf-8"))["machine"]
    text = _readme()
    assert f"{machine['cpus']}-core" in text
    assert f"Python {'.'.join(machine['python'].split('.')[:2])}" in text
    assert f"Node.js {machine['node'].lstrip('v').split('.')[0]}" in text
