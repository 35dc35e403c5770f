"""What action.yml declares for a fork's workflow (its steps run as a runner would run them:
tests/e2e/test_action.py)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def test_action_declares_what_a_fork_needs() -> None:
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert {"target", "baseline", "profile", "python-version", "seed", "args"} <= set(action["inputs"])
    uses = [s.get("uses", "") for s in action["runs"]["steps"]]
    assert any(u.startswith("actions/setup-python@") for u in uses)
    assert any(u.startswith("actions/upload-artifact@") for u in uses)
    example = (REPO / "docs" / "github-actions-example.yml").read_text(encoding="utf-8")
    assert "uses: " in example and "seqthink-conformance@" in example


def test_the_action_runs_nothing_from_the_checkout() -> None:
    """Every Python the action starts is isolated (`-I`: the workspace, PYTHONPATH and the user's site are
    not on the import path), so a fork's committed `shlex.py` or `pip/__main__.py` never runs."""
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    scripts = [s["run"] for s in action["runs"]["steps"] if "run" in s]
    calls = [line for run in scripts for line in run.splitlines()
             if re.search(r"(^|[\s(;&|])python3?\s", line) and not line.lstrip().startswith("#")]
    assert len(calls) >= 4, calls
    assert all(re.search(r"python3? -I ", line) for line in calls), calls
    assert not any("python -I -m scripts." in line for line in calls), "-I -m finds no module in the cwd"


def test_the_action_has_a_deadline_by_default() -> None:
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert float(action["inputs"]["max-time"]["default"]) > 0
    assert 'argv+=(--max-time "$MAX_TIME")' in (REPO / "action.yml").read_text(encoding="utf-8")


def test_the_workflows_check_out_without_keeping_the_token() -> None:
    """A checkout that persists credentials leaves the token in .git/config, where the head's `npm ci`, build
    and server (all code of the pull request) can read it."""
    files = [REPO / "docs" / "github-actions-example.yml", REPO / "docs" / "github-actions-pull-request.yml",
             *sorted((REPO / ".github" / "workflows").glob("*.yml"))]
    steps = [step for f in files for job in yaml.safe_load(f.read_text(encoding="utf-8"))["jobs"].values()
             for step in job.get("steps", [])]
    checkouts = [step for step in steps if str(step.get("uses", "")).startswith("actions/checkout@")]
    assert len(checkouts) >= 7
    assert all((step.get("with") or {}).get("persist-credentials") is False for step in checkouts), checkouts
