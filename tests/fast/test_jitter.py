"""`scripts/jitter` (issue 43's flake hunt on a simulated slow machine): it really stops the command's
processes, returns the command's exit status, and leaves no process stopped behind, not even an orphan.
Real processes; bounded deadlines on what is observed, no timing asserts."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil

from tests.cli import REPO
from tests.servers import OVERRUN

_COMMAND = """
import pathlib, subprocess, sys, time
folder = pathlib.Path(sys.argv[1])
orphan = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
(folder / "pid.tmp").write_text(str(orphan.pid)); (folder / "pid.tmp").rename(folder / "pid")
deadline = time.monotonic() + 300
while not (folder / "go").exists() and time.monotonic() < deadline:
    time.sleep(0.01)
sys.exit(3)
"""
"""Starts a child it leaves behind (its pid in `pid`), exits 3 once `go` exists: the child is orphaned."""


def _status(pid: int) -> str:
    try:
        return str(psutil.Process(pid).status())
    except psutil.NoSuchProcess:
        return "gone"


def _until(holds: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + OVERRUN
    while not holds() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert holds(), what


def test_the_tree_is_stopped_and_an_orphan_is_continued_when_it_leaves(tmp_path: Path) -> None:
    command = [sys.executable, "-c", _COMMAND, str(tmp_path)]
    jitter = subprocess.Popen([sys.executable, "-m", "scripts.jitter", "--slow", "10", "--", *command],
                              cwd=REPO)
    orphan = 0
    try:
        _until(lambda: (tmp_path / "pid").exists(), "the command never started its child")
        orphan = int((tmp_path / "pid").read_text())
        _until(lambda: _status(orphan) == psutil.STATUS_STOPPED, "the child was never stopped")
        (tmp_path / "go").touch()
        assert jitter.wait(timeout=OVERRUN) == 3
        assert _status(orphan) not in (psutil.STATUS_STOPPED, "gone"), "the orphan was left stopped"
    finally:
        jitter.kill()
        if orphan:
            with contextlib.suppress(psutil.Error):
                psutil.Process(orphan).kill()
