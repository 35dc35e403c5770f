"""How many server processes a run starts, counted by the server command itself, not by the harness.

The target is the reference behind a wrapper that logs every start to a file, colour rows (started with an
exact environment) included, so the report's own count is checked against what really ran.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def counted_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, list[str], dict[str, object]]:
    folder = tmp_path_factory.mktemp("counted")
    log = folder / "starts.log"
    wrapper = folder / "server.sh"
    wrapper.write_text(
        f'#!/bin/sh\necho "$$" >> {log}\nexec {sys.executable} -m reference_server "$@"\n', encoding="utf-8"
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("CI", None)
    out = folder / "out"
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--target", f"cmd:{wrapper}", "--profile", "ci",
         "--seed", "20261201", "--out", str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    starts = log.read_text(encoding="utf-8").split() if log.is_file() else []
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert isinstance(report, dict)
    return done.returncode, starts, report


def test_a_ci_run_starts_fewer_than_ten_server_processes(
    counted_run: tuple[int, list[str], dict[str, object]],
) -> None:
    code, starts, report = counted_run
    assert code == 0, report.get("gate")
    assert 0 < len(starts) < 10, f"{len(starts)} server processes started"


def test_the_report_counts_every_start(counted_run: tuple[int, list[str], dict[str, object]]) -> None:
    _, starts, report = counted_run
    run = report["run"]
    assert isinstance(run, dict)
    assert run["processes_started"] == len(starts), (run["processes_started"], len(starts))
