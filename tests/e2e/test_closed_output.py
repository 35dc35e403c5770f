"""`run ... | head -3`: the reader of stdout goes away after three lines, and the run still finishes, writes
its report and exits with the gate's status, never 2 ("cannot be used") nor a report blaming pytest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli import GATE_SEED, GATE_SUITE, REPO, fake


@pytest.mark.parametrize(("target", "code"), [("reference", 0), (fake("hostile"), 1)],
                         ids=["passes", "fails"])
def test_a_reader_that_stops_after_three_lines_changes_nothing_but_the_output(
    target: str, code: int, tmp_path: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("CI", None)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "conformance", "run", "--target", target, "--profile", "dev",
         "--seed", GATE_SEED, "--suite", GATE_SUITE, "--out", str(out)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    lines = [proc.stdout.readline() for _ in range(3)]  # as `| head -3` reads, then goes away
    proc.stdout.close()
    stderr = proc.stderr.read()
    status = proc.wait(timeout=300)
    assert lines[0].startswith("conformance run: target "), lines
    assert status == code, stderr
    assert "broken pipe" not in stderr and "Traceback" not in stderr, stderr
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["gate"]["passed"] is (code == 0)
    assert report["run"]["tests"] == 3, report["run"]
    assert "internal error" not in (out / "report.md").read_text(encoding="utf-8")
