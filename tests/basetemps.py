"""Each test run's own temporary folder, and which older ones may go.

A run holds a lock on its folder for its whole life (the kernel drops it when the run's process ends, however
it ends), so pruning asks the lock, not the clock, whether a run still uses a folder: an age rule (an hour)
removed the folder of a run still going, as an end-to-end run on a loaded machine takes longer (issue 43).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from pathlib import Path
from typing import Final

LOCK: Final = ".in-use"
"""The file in a run's folder that its run holds a shared lock on while it runs."""

_held: list[int] = []
"""Descriptors of the locks this process holds: kept open (and so held) until it exits."""


def claim(root: Path) -> Path:
    """A new folder under `root` for this run, locked for as long as this process lives."""
    root.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="run-", dir=root))
    fd = os.open(folder / LOCK, os.O_RDONLY | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_SH)
    _held.append(fd)
    return folder


def in_use(folder: Path) -> bool:
    """Whether a live run holds `folder`'s lock. A folder without one (made before runs took locks, or whose
    run was killed before it took it) is not in use: nothing would ever release it otherwise."""
    try:
        fd = os.open(folder / LOCK, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def prune(root: Path, kept: int) -> list[Path]:
    """Remove the oldest run folders under `root` beyond the `kept - 1` newest (room for the run about to
    start), never one a live run holds; returns those removed."""
    older = sorted((p for p in root.glob("run-*") if p.is_dir() and not p.is_symlink()),
                   key=lambda p: p.stat().st_mtime)
    removed = []
    for stale in older[: max(0, len(older) - kept + 1)]:
        if not in_use(stale):
            shutil.rmtree(stale, ignore_errors=True)
            removed.append(stale)
    return removed

