"""Files a server writes beside its own script: a fork that saves its store next to `index.js` writes
outside the sandbox its raw processes take as HOME and TMPDIR, so ABS-1's sandbox alone never sees it
(held-out-multi-13: branch labels saved to `.branch-labels.json` beside the script, restored by every process
started after).

The folders are those of the command's arguments that name existing files (never the interpreter's own); each
is listed, with the files of each folder in it one level down (a port keeping `data/thoughts.json` beside its
script), before the run's first raw process and again when ABS-1 is checked. A file new or changed between the
two (size or modification time), in the folder or in a folder of it, new or not, was written by the target's
processes. Not looked in: the interpreters' own caches and installs (`__pycache__`, `node_modules`, a
virtualenv), dot-folders. Bounded: at most `FOLDERS` folders of at most `ENTRIES` entries (a bigger folder is
not watched), `SUB_ENTRIES` in a folder of one (a bigger one is not looked in), symbolic links not followed.
Blind spot: a file written only before the first listing and never again.

A folder replaced as a whole between the two listings (another folder now at its path: an install the
harness's cache replaced under the run, npm's reinstall of the same package) is no write by the server: its
files are then compared by name and size only, a copy's new modification times not counted, while a file new
or of another size in it still is."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

FOLDERS: Final = 4
ENTRIES: Final = 2000
SUB_ENTRIES: Final = 200
UNWATCHED: Final = frozenset({"__pycache__", "node_modules", "site-packages", "dist-packages"})
"""Folders of the interpreter's or the package manager's own: byte-code caches and installed dependencies."""

Files = Mapping[str, tuple[int, int]]
"""A folder's regular files by name: (size, modification time in ns)."""


@dataclass(frozen=True)
class Listing:
    """One folder as listed: which folder it was (device and inode) and its regular files."""

    identity: tuple[int, int]
    files: Files
    inner: Mapping[str, Files] = field(default_factory=dict)
    """The regular files of each folder in it that is looked in, by the folder's name."""


def script_folders(command: Sequence[str]) -> list[Path]:
    """The folders of the command's arguments that are existing regular files (the interpreter excluded)."""
    folders: list[Path] = []
    for argument in command[1:]:
        path = Path(argument)
        try:
            if not stat.S_ISREG(path.stat().st_mode):
                continue
            folder = path.resolve().parent
        except (OSError, ValueError, RuntimeError):
            continue
        if folder not in folders:
            folders.append(folder)
        if len(folders) == FOLDERS:
            break
    return folders


def listing(folder: Path) -> Listing | None:
    """`folder`'s regular files, or None when it cannot be listed or holds more than `ENTRIES` entries."""
    inner: dict[str, Files] = {}
    try:
        found_folder = os.stat(folder, follow_symlinks=False)
    except OSError:
        return None
    files = _files(folder, ENTRIES, inner)
    return None if files is None else Listing((found_folder.st_dev, found_folder.st_ino), files, inner)


def _looked_in(folder: Path) -> bool:
    """A folder of the script's that may hold what its server writes: not a dot-folder, an interpreter's cache
    or installs, or a virtualenv."""
    return (not folder.name.startswith(".") and folder.name not in UNWATCHED
            and not (folder / "pyvenv.cfg").exists())


def _files(folder: Path, bound: int = SUB_ENTRIES, inner: dict[str, Files] | None = None) -> Files | None:
    """`folder`'s regular files, or None when it holds more than `bound` entries or cannot be listed; with
    `inner`, each folder in it that may hold what a server writes (`_looked_in`) listed into it, one deep."""
    files: dict[str, tuple[int, int]] = {}
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries, 1):
                if count > bound:
                    return None
                if entry.is_file(follow_symlinks=False):
                    found = entry.stat(follow_symlinks=False)
                    files[entry.name] = (found.st_size, found.st_mtime_ns)
                elif (inner is not None and entry.is_dir(follow_symlinks=False)
                      and _looked_in(Path(entry.path))):
                    held = _files(Path(entry.path))
                    if held is not None:
                        inner[entry.name] = held
    except OSError:
        return None
    return files


def listings(folders: Sequence[Path]) -> dict[Path, Listing]:
    """Each watchable folder's listing."""
    return {folder: found for folder in folders if (found := listing(folder)) is not None}


def written_since(before: Mapping[Path, Listing]) -> list[str]:
    """The files of the folders listed in `before` that are new or changed since, as paths."""
    written: list[str] = []
    for folder, then in before.items():
        now = listing(folder)
        if now is None:
            continue
        kept = now.identity == then.identity
        written.extend(str(folder / name) for name, seen in sorted(now.files.items())
                       if not _unchanged(then.files.get(name), seen, copied=not kept))
        for inner, files in sorted(now.inner.items()):
            earlier = then.inner.get(inner, {})
            written.extend(str(folder / inner / name) for name, seen in sorted(files.items())
                           if not _unchanged(earlier.get(name), seen, copied=not kept))
    return written


def _unchanged(then: tuple[int, int] | None, now: tuple[int, int], *, copied: bool) -> bool:
    """The same file as listed before; in a folder replaced by a copy, the same size (its time is new)."""
    if then is None:
        return False
    return then[0] == now[0] if copied else then == now


def replaced_since(before: Mapping[Path, Listing]) -> list[Path]:
    """The folders listed in `before` that another folder has replaced at their path since."""
    return [folder for folder, then in before.items()
            if (now := listing(folder)) is not None and now.identity != then.identity]
