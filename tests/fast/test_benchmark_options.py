"""`python -m benchmarks.run` refuses an unknown section before measuring anything (a tiny real section:
tests/e2e/test_benchmarks.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_unknown_section_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", "--out", str(tmp_path), "--only", "drivers,nonsense",
         "--quick"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 2
    assert "sections are drivers, servers, run, memory" in done.stderr
    assert not (tmp_path / "benchmarks.json").exists()
