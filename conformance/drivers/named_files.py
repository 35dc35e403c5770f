"""Files a server names on its own stderr and changed outside every folder the harness gave it.

A server writing to a fixed absolute folder (a fork logging each request and answer into `/tmp/mcp-logs/`: its
folder a literal, not the temp folder its TMPDIR names) writes where no listing of its own working, temp and
HOME folders looks, so ABS-1 held of a server that had left 64 MB there. Such a server names the folder or
its files on its stderr ("logs folder: /tmp/mcp-logs", "answer saved to /tmp/mcp-logs/responses/7.json"),
and that is where this module looks: each absolute path the stderr names (the first `NAMES`), a regular file
changed since the run began, or a folder's regular files, and those of its folders one deep, changed since
then. Not looked in: a shared root itself (`/`, `/tmp`, `/var/tmp`, a HOME, the system's folders), a folder
holding one of the run's own, a path under one of the run's own (listed already), the kernel's pseudo-files,
an interpreter's caches and installs (`__pycache__`, `node_modules`, a virtualenv).
Bounded: `ENTRIES` entries a folder, `KEPT` files said (the rest counted); links never followed. Blind spot:
a file written outside and never named.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Final

NAMES: Final = 32
"""Distinct absolute paths read from one server's stderr, at most."""
ENTRIES: Final = 2000
"""Entries looked at in one named folder, and in each folder of it, at most."""
KEPT: Final = 16
"""Files said by name, at most (the rest counted)."""
SHARED_ROOTS: Final = frozenset({"/", "/tmp", "/var", "/var/tmp", "/var/log", "/dev", "/dev/shm", "/run",
                                 "/home", "/root", "/usr", "/opt", "/srv", "/mnt", "/media", "/etc",
                                 "/private", "/private/tmp", "/Users", "/Volumes"})
"""Folders every process shares: named, they are never listed (another's files are in them)."""
PSEUDO: Final = ("/proc", "/sys", "/dev")
"""The kernel's pseudo-files: never a server's write."""
UNWATCHED: Final = frozenset({"__pycache__", "node_modules", "site-packages", "dist-packages"})
"""Folders of the interpreter's or the package manager's own."""
_PATH: Final = re.compile(r"(?<![\w.~/\\-])/[^\s\"'`<>|(){}\[\],;*?]+")
"""An absolute POSIX path as a line says it, up to a space, a quote, a bracket or a separator."""
_TAIL: Final = re.compile(r"(?::\d+|[.:!])+$")
"""What follows a path in a sentence or a stack trace: `:12:5`, a full stop, a colon."""


@dataclass(frozen=True)
class Named:
    """The files changed since the run began at paths a server's stderr named, `more` beyond those kept."""

    files: tuple[str, ...]
    more: int = 0

    def said(self) -> list[str]:
        return [*self.files, *([f"and {self.more} more"] if self.more else [])]


def named_paths(text: str) -> list[str]:
    """The distinct absolute paths `text` names, in order, at most `NAMES` (a `file://` URL's path too)."""
    found: list[str] = []
    for match in _PATH.finditer(text.replace("file://", " ")):
        path = _TAIL.sub("", match.group(0))
        path = os.path.normpath(path) if path else path
        if len(path) > 1 and path not in found:
            found.append(path)
            if len(found) == NAMES:
                break
    return found


def changed_at_named(said: Iterable[bytes], since_ns: int, own: Sequence[str]) -> Named:
    """The regular files at the paths `said` (stderr, decoded leniently) names, or in the folders it names,
    changed at or after `since_ns` (wall clock, ns) and under none of the folders `own` (the run's)."""
    paths: list[str] = []
    for chunk in said:
        for path in named_paths(chunk.decode("utf-8", "replace")):
            if path not in paths and len(paths) < NAMES:
                paths.append(path)
    files: set[str] = set()
    for path in paths:
        if _excluded(path, own):
            continue
        try:
            found = os.stat(path, follow_symlinks=False)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(found.st_mode):
            if found.st_mtime_ns >= since_ns:
                files.add(path)
        elif stat.S_ISDIR(found.st_mode) and path not in SHARED_ROOTS:
            files.update(_changed_in(path, since_ns, depth=1))
    ordered = sorted(files, key=lambda f: (f.count("/"), f))  # a folder's own files before its folders'
    return Named(tuple(ordered[:KEPT]), max(0, len(ordered) - KEPT))


def _excluded(path: str, own: Sequence[str]) -> bool:
    """A path never looked at: a pseudo-file, one in an interpreter's cache or installs, or one under, or
    holding, one of the run's own folders."""
    here = PurePosixPath(path)
    if any(here == PurePosixPath(p) or PurePosixPath(p) in here.parents for p in PSEUDO):
        return True
    if UNWATCHED & set(here.parts):
        return True  # an installed package's file named in a stack trace, not a server's write
    for folder in own:
        mine = PurePosixPath(folder)
        if here == mine or mine in here.parents or here in mine.parents:
            return True
    return False


def _looked_in(folder: str) -> bool:
    """A folder that may hold what a server writes: not a dot-folder, an interpreter's byte-code cache or
    installs, or a virtualenv (an interpreter writes those, not the server)."""
    name = os.path.basename(folder)
    return (not name.startswith(".") and name not in UNWATCHED
            and not os.path.exists(os.path.join(folder, "pyvenv.cfg")))


def _changed_in(folder: str, since_ns: int, depth: int) -> list[str]:
    """`folder`'s regular files changed at or after `since_ns`, and its folders' `depth` deep, bounded."""
    files: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries, 1):
                if count > ENTRIES:
                    break
                if entry.is_file(follow_symlinks=False):
                    if entry.stat(follow_symlinks=False).st_mtime_ns >= since_ns:
                        files.append(entry.path)
                elif depth > 0 and entry.is_dir(follow_symlinks=False) and _looked_in(entry.path):
                    files.extend(_changed_in(entry.path, since_ns, depth - 1))
    except OSError:
        return files
    return files
