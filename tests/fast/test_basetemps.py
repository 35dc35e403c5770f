"""A test run's temporary folder is pruned only once no live run holds it, whatever its age (issue 43: an
hour's age rule removed the folder of an end-to-end run still going on a loaded machine)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.basetemps import LOCK, in_use, prune
from tests.cli import REPO
from tests.servers import OVERRUN

_HOLDER = """
import sys
from pathlib import Path
from tests.basetemps import claim
print(claim(Path(sys.argv[1])), flush=True)
sys.stdin.read()
"""
"""Claims a folder under argv[1] (says which) and holds it until its stdin ends: another run, still going."""


def _folder(root: Path, name: str, *, lock_file: bool, age: float) -> Path:
    folder = root / name
    folder.mkdir()
    if lock_file:
        (folder / LOCK).touch()
    os.utime(folder, (age, age))
    return folder


def test_a_held_folder_is_kept_however_old_and_pruned_once_its_run_ended(tmp_path: Path) -> None:
    root = tmp_path / "basetemps"
    root.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(root)], cwd=REPO, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdin is not None and holder.stdout is not None
        held = Path(holder.stdout.readline().strip())
        assert held.parent == root, "the holder never said its folder"
        os.utime(held, (1.0, 1.0))  # the oldest of all: an age rule would take it first
        unlocked = _folder(root, "run-unlocked", lock_file=True, age=2.0)
        older = _folder(root, "run-before-locks", lock_file=False, age=3.0)
        newest = _folder(root, "run-newest", lock_file=True, age=4.0)
        assert in_use(held) and not in_use(unlocked) and not in_use(older)

        assert prune(root, 2) == [unlocked, older]  # the newest stays, and the held one however old
        assert sorted(p.name for p in root.iterdir()) == sorted([held.name, newest.name])

        holder.stdin.close()
        assert holder.wait(OVERRUN) == 0
        assert not in_use(held), "a run's lock outlived its process"
        assert prune(root, 2) == [held]
        assert list(root.iterdir()) == [newest]
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


def test_the_newest_folders_are_kept(tmp_path: Path) -> None:
    """`kept` - 1 of the newest stay beside the folder the starting run is about to make."""
    folders = [_folder(tmp_path, f"run-{n}", lock_file=True, age=float(n + 1)) for n in range(5)]
    assert prune(tmp_path, 3) == folders[:3]
    assert sorted(tmp_path.iterdir()) == folders[3:]
