"""`tests/costs.measured`, the launcher the tests bound work with: it counts the CPU of the command and of
what the command reaped (a run's servers), not the wall clock; a command past its wall-clock deadline is
killed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.costs import StillRunning, measured

BURN = """
import time
began = time.process_time()
while time.process_time() - began < 0.3:
    pass
"""
"""Spends 0.3 CPU seconds, however long that takes on the wall clock."""


def test_a_grandchilds_cpu_is_counted_and_a_sleep_costs_none(tmp_path: Path) -> None:
    burns = measured([sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', "
                      f"{BURN!r}], check=True)"], cwd=tmp_path, hang_seconds=300)
    assert burns.code == 0, burns.stderr
    assert burns.cpu_seconds >= 0.3, burns
    sleeps = measured([sys.executable, "-c", "import time; time.sleep(1.0)"], cwd=tmp_path, hang_seconds=300)
    assert sleeps.code == 0, sleeps.stderr
    assert sleeps.cpu_seconds < burns.cpu_seconds, (sleeps, burns)


def test_a_command_past_its_deadline_is_killed(tmp_path: Path) -> None:
    with pytest.raises(StillRunning, match=r"still running after 0\.5 s"):
        measured([sys.executable, "-c", "import time; time.sleep(600)"], cwd=tmp_path, hang_seconds=0.5)
