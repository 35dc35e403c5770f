"""pytest itself stops before `--snapshot-update` rewrites the original's answers from another target."""

from __future__ import annotations

import sys
from pathlib import Path

from conformance.suite import snapshots
from tests.paced import run_paced

REPO = Path(__file__).resolve().parents[2]


def test_pytest_stops_before_rewriting_from_another_target() -> None:
    before = {p.name: p.read_bytes() for p in snapshots.SNAPSHOTS.iterdir()}
    done = run_paced(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         "conformance/suite/test_tool_spec.py", "--target", "reference", "--snapshot-update"],
        cwd=REPO, stall=120,
    )
    assert done.returncode == 4, done.stdout + done.stderr
    assert "--snapshot-update refused" in done.stderr
    assert {p.name: p.read_bytes() for p in snapshots.SNAPSHOTS.iterdir()} == before


def test_the_suite_by_module_name_is_refused_as_a_usage_error_too(tmp_path: Path) -> None:
    """With --pyargs (how an installed suite runs) the suite's conftest is read while collecting: the refusal
    is still a usage error, not a collection error, and still rewrites nothing."""
    before = {p.name: p.read_bytes() for p in snapshots.SNAPSHOTS.iterdir()}
    done = run_paced(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-p", "conformance.suite.plugin",
         "--pyargs", "conformance.suite", "--target", "reference", "--snapshot-update"],
        cwd=tmp_path, stall=120,
    )
    assert done.returncode == 4, done.stdout + done.stderr
    assert "--snapshot-update refused" in done.stderr
    assert {p.name: p.read_bytes() for p in snapshots.SNAPSHOTS.iterdir()} == before
