"""pytest itself stops before `--snapshot-update` rewrites the original's answers from another target."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conformance.suite import snapshots

REPO = Path(__file__).resolve().parents[2]


def test_pytest_stops_before_rewriting_from_another_target() -> None:
    before = {p.name: p.read_bytes() for p in snapshots.SNAPSHOTS.iterdir()}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         "conformance/suite/test_tool_spec.py", "--target", "reference", "--snapshot-update"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 4, done.stdout + done.stderr
    assert "--snapshot-update refused" in done.stderr
    assert {p.name: p.read_bytes() for p in snapshots.SNAPSHOTS.iterdir()} == before
