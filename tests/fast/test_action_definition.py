"""What action.yml declares for a fork's workflow (its steps run as a runner would run them:
tests/e2e/test_action.py)."""

from __future__ import annotations

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
