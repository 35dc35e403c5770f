"""`python -m benchmarks.run` end to end on a tiny section: it runs, and what it writes has the promised
shape.

No timing is asserted (the machine is shared); only that the figures exist, are consistent with each
other, and validate against the model the README's numbers are quoted from.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import figures as figures_model
from tests.paced import run_paced

REPO = Path(__file__).resolve().parents[2]


def run_script(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_paced(
        [sys.executable, "-m", "benchmarks.run", "--out", str(out), *args],
        cwd=REPO,
    )


def test_quick_drivers_section_writes_valid_figures(tmp_path: Path) -> None:
    done = run_script(tmp_path, "--only", "drivers", "--quick", "--calls", "10", "--repetitions", "3")
    assert done.returncode == 0, done.stderr[-3000:]

    raw = json.loads((tmp_path / "benchmarks.json").read_text(encoding="utf-8"))
    figures = figures_model.Benchmarks.model_validate(raw)
    assert figures.format == figures_model.BENCHMARKS_FORMAT
    assert figures.quick is True
    assert figures.sections == ["drivers"]
    assert figures.servers is None and figures.run is None and figures.memory is None

    drivers = figures.drivers
    assert drivers is not None and drivers.target == "npm:0.6.2"
    by_client = {r.client: r for r in drivers.rates}
    clients = {"bare, stderr to /dev/null", "bare, stderr drained", "wire driver", "sdk driver"}
    assert set(by_client) == clients
    for rate in drivers.rates:
        assert rate.calls_per_batch == 10
        assert 0 < rate.min_per_s <= rate.median_per_s <= rate.max_per_s
        assert rate.us_per_call == pytest.approx(1e6 / rate.median_per_s)
    assert by_client["wire driver"].batches == 3 == len(drivers.wire_over_bare_per_batch)
    assert drivers.wire_over_bare > 0
    assert drivers.sdk_over_bare == pytest.approx(
        by_client["sdk driver"].median_per_s / by_client["bare, stderr to /dev/null"].median_per_s
    )

    [check] = figures.targets
    assert check.name.startswith("wire driver") and check.measured == drivers.wire_over_bare
    assert check.met == (drivers.wire_over_bare >= 0.80)

    table = (tmp_path / "benchmarks.md").read_text(encoding="utf-8")
    assert table.startswith("# Benchmarks")
    assert "quick mode" in table
    for client in by_client:
        assert f"| {client} |" in table
