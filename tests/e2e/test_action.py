"""The composite action (action.yml), its steps run as a runner would by scripts.run_action: against the
reference the job passes and the summary is the report; against a server that cannot start it fails."""

from __future__ import annotations

import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BROKEN = REPO / "tests" / "servers" / "exit_at_start.py"


@dataclass
class Job:
    code: int
    output: str
    work: Path

    @property
    def summary(self) -> str:
        return (self.work / "github_step_summary.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def python_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One virtualenv for the setup-python stand-in, shared by both jobs (the install step fills it)."""
    return tmp_path_factory.mktemp("action-python") / "venv"


def job(work: Path, venv: Path, **inputs: str) -> Job:
    argv = [sys.executable, "-m", "scripts.run_action", "--work", str(work), "--venv", str(venv)]
    for name, value in inputs.items():
        argv += ["--input", f"{name.replace('_', '-')}={value}"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900, check=False, cwd=REPO)
    return Job(done.returncode, done.stdout + done.stderr, work)


def test_action_passes_on_the_reference(tmp_path: Path, python_venv: Path) -> None:
    ran = job(tmp_path / "ws", python_venv, target="reference", profile="dev", seed="20261129")
    assert ran.code == 0, ran.output[-4000:]
    assert ran.summary.startswith("# Conformance report: reference"), ran.summary[:300]
    assert "gate passed" in ran.summary
    uploaded = tmp_path / "ws" / "artifacts" / "conformance-report"
    assert {"report.json", "report.md", "report.html", "junit.xml"} <= {p.name for p in uploaded.iterdir()}


def test_action_fails_the_job_on_a_broken_server(tmp_path: Path, python_venv: Path) -> None:
    target = "cmd:" + shlex.join([sys.executable, str(BROKEN)])
    ran = job(tmp_path / "ws", python_venv, target=target, profile="dev", args="--jobs 1")
    assert ran.code == 2, ran.output[-4000:]
    assert "could not be checked" in ran.summary or "gate failed" in ran.summary, ran.summary[:500]
    assert "Fail the job by the gate's exit status" in ran.output
