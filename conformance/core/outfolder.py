"""The folders and files the harness writes, and only those: a command writes into a staging folder beside
`--out` and moves it into place once complete, so the previous output stays whole until then (and stays
when the command fails first); it records what it wrote in a manifest, so a later command replaces only
that; a folder holding anything else is refused, never cleared; and a lock beside the folder keeps a
second command from writing into it at the same time.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.core.create import CreateError, create_file, create_folder, folder_fd, new_fd, taken
from conformance.core.errors import InputError
from conformance.core.inputs import read_model
from conformance.core.words import first_and_more

MANIFEST: Final = ".seqthink-conformance.json"
"""The manifest in every folder the harness wrote: the paths it wrote there, nothing else."""
MANIFEST_FORMAT: Final = "seqthink-conformance-out/1"
BASELINE_PATH: Final = ".conformance/baseline.yaml"
"""Where a project keeps its baseline: the README, the terminal's and report.md's next steps and the action's
default all name this one path, so pasting one after the other never leaves two baselines."""
_STAGING: Final = "seqthink-staging"
_OLD: Final = "seqthink-old"
_LOCK: Final = "seqthink-lock"
_KEPT: Final = "seqthink-kept"
_SHOWN: Final = 3
_PID: Final = re.compile(r"[0-9]{0,20}")


class Manifest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["seqthink-conformance-out/1"] = MANIFEST_FORMAT
    command: str = Field(description="the command that wrote the folder (run, compare, atlas)")
    entries: list[str] = Field(
        default_factory=list, description="every path it wrote, relative, '/'-separated; folders end in '/'"
    )


def entries_of(folder: Path) -> list[str]:
    """Every path under `folder` (the manifest aside), folders with a trailing '/'; symlinks not followed."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath).relative_to(folder)
        for name in dirnames:
            is_link = os.path.islink(os.path.join(dirpath, name))
            found.append((here / name).as_posix() + ("" if is_link else "/"))
        found += [(here / name).as_posix() for name in filenames]
    return sorted(entry for entry in found if entry != MANIFEST)


class OutFolder:
    """An output folder claimed by one command: `staging` is where it writes, `commit()` puts it in place."""

    def __init__(self, path: Path, command: str) -> None:
        self.path = path
        self.command = command
        self.real = _real_folder(path)
        self.staging = self.real.parent / f".{self.real.name}.{_STAGING}-{os.getpid()}"
        self.committed = False
        self.kept = False
        self._created: list[Path] = []
        self._lock: int | None = None

    def claim(self) -> None:
        """Lock the folder, refuse it when it holds what the harness did not write, create the staging."""
        self._created = _make_parents(self.real.parent, self.path)
        self._lock, dead = _lock(self.real.parent / f".{self.real.name}.{_LOCK}", self.path)
        _check_owned(self.real, self.path)
        if dead is not None:  # after the check: a refused command leaves a dead one's folders alone
            self._remove_leftovers(dead)
        old = self._old()
        if old.exists() or old.is_symlink():
            raise taken(old, ", where this command would move the previous output")
        create_folder(self.staging)
        _write_manifest(self.staging, Manifest(command=self.command))

    def commit(self) -> None:
        """The staged output replaces the folder's: what its manifest lists goes, nothing else."""
        _write_manifest(self.staging, Manifest(command=self.command, entries=entries_of(self.staging)))
        try:
            if self.real.exists():
                _check_owned(self.real, self.path, during=True)
                old = self._old()
                os.rename(self.real, old)
                os.rename(self.staging, self.real)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(self.staging, self.real)
        except (InputError, OSError) as exc:
            self.kept = True
            why = str(exc) if isinstance(exc, InputError) else f"--out {self.path}: {exc.strerror or exc}"
            self.staging = self._keep()
            raise InputError(f"{why}; this run's output is in {self.staging}") from None
        self.committed = True

    def _keep(self) -> Path:
        """The staging folder under a name of its own, which no later command takes for a leftover or needs
        for its own staging (a staging name is reused by a later process of the same pid)."""
        for attempt in range(100):
            suffix = f"{os.getpid()}-{attempt}" if attempt else f"{os.getpid()}"
            kept = self.real.parent / f".{self.real.name}.{_KEPT}-{suffix}"
            if kept.exists() or kept.is_symlink():
                continue
            try:
                os.rename(self.staging, kept)
            except OSError:
                break
            return kept
        return self.staging

    def release(self) -> None:
        """Discard an uncommitted staging folder (and the parents made for it); unlock."""
        if not self.committed and not self.kept and self._made_staging():
            shutil.rmtree(self.staging, ignore_errors=True)
        if self._lock is not None:
            with contextlib.suppress(OSError):  # still ours: a command removes a lock only while holding it
                os.unlink(self.real.parent / f".{self.real.name}.{_LOCK}")
            os.close(self._lock)
            self._lock = None
        if not self.committed and not self.kept:
            for made in reversed(self._created):
                with contextlib.suppress(OSError):
                    made.rmdir()

    def _old(self) -> Path:
        return self.real.parent / f".{self.real.name}.{_OLD}-{os.getpid()}"

    def _made_staging(self) -> bool:
        """The staging folder exists and is the one this command made (its manifest in it), not an entry
        planted at its name that `claim` refused."""
        manifest = self.staging / MANIFEST
        return not self.staging.is_symlink() and manifest.is_file() and not manifest.is_symlink()

    def _remove_leftovers(self, dead: int) -> None:
        """The staging and replaced folders of the command that died holding this folder's lock (its pid was
        in the lock): those names only, and only as folders holding the harness's manifest. A folder the
        harness kept and said so, or another `--out`'s, is never one of them."""
        for stem in (_STAGING, _OLD):
            leftover = self.real.parent / f".{self.real.name}.{stem}-{dead}"
            if leftover.is_dir() and not leftover.is_symlink() and (leftover / MANIFEST).is_file():
                shutil.rmtree(leftover, ignore_errors=True)


@contextlib.contextmanager
def claimed(out: Path, command: str) -> Iterator[OutFolder]:
    """`out` claimed for `command`; whatever was not committed when the block ends is discarded."""
    folder = OutFolder(out, command)
    try:
        folder.claim()
        yield folder
    finally:
        folder.release()


def write_file(path: Path, text: str, *, replace: bool, hint: str = "choose another path") -> None:
    """`text` into `path` all at once (a scratch file beside it, created new and renamed): a reader sees the
    old file or the new one, never half of one. An existing file is kept, and refused, unless `replace`."""
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a file")
    if not replace and (path.exists() or path.is_symlink()):
        raise InputError(f"{path} exists and is not replaced: {hint}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        create_file(path, text, replace=replace)
    except CreateError as exc:
        if not replace and (path.exists() or path.is_symlink()):  # appeared meanwhile
            raise InputError(f"{path} exists and is not replaced: {hint}") from None
        raise exc from None


def _real_folder(path: Path) -> Path:
    if path.is_symlink() and not path.is_dir():
        raise InputError(f"--out {path} is a symlink to no folder: choose a folder")
    if path.exists() and not path.is_dir():
        raise InputError(f"--out {path} is a file, not a folder: choose a folder")
    real = path.resolve()
    if real.parent == real:
        raise InputError(f"--out {path} is the file system's root: choose a folder of its own")
    return real


def _make_parents(parent: Path, shown: Path) -> list[Path]:
    missing = [p for p in [parent, *parent.parents] if not p.exists()]
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the folder of --out {shown}: {exc.strerror or exc}") from None
    return list(reversed(missing))


def _lock(path: Path, shown: Path) -> tuple[int, int | None]:
    """An exclusive lock on a file created new beside the folder, held while the command runs (the system
    drops it if the command dies), the holder's pid in it for the message of a second command. Returns it
    and the pid of a dead holder whose lock file was left (its leftovers are known by that pid)."""
    dead: int | None = None
    with folder_fd(path.parent) as parent:
        for _ in range(5):
            try:
                handle = new_fd(path, dir_fd=parent, read=True)
            except CreateError:
                if not (path.exists() or path.is_symlink()):
                    raise
                dead = _stale(path, parent, shown) or dead
                continue
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # a second command took it for a dead one's meanwhile: try again
                os.close(handle)
                continue
            if _names(path, parent, handle):
                os.write(handle, str(os.getpid()).encode())
                return handle, dead
            os.close(handle)
    raise InputError(f"--out {shown}: cannot take its lock (another run keeps replacing it)")


def _stale(path: Path, parent: int, shown: Path) -> int | None:
    """The lock file found at `path`: a live command's (refused, naming it), a dead command's (removed, its
    pid returned), or not a lock of the harness (refused, untouched: never followed, emptied or removed)."""
    try:
        handle = os.open(path.name, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=parent)
    except FileNotFoundError:
        return None  # its holder removed it: try again
    except OSError:
        raise taken(path, ", not a lock file of the harness") from None
    try:
        found = os.fstat(handle)
        if not stat.S_ISREG(found.st_mode) or found.st_nlink != 1:
            raise taken(path, ", not a lock file of the harness")
        text = os.read(handle, 64).decode("ascii", "replace").strip()
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise InputError(
                f"--out {shown} is being written by another run (pid {text or 'unknown'}): wait for it to "
                "finish, or choose another --out"
            ) from None
        if _PID.fullmatch(text) is None:
            raise taken(path, ", not a lock file of the harness")
        if not _names(path, parent, handle):
            return None
        os.unlink(path.name, dir_fd=parent)  # while holding it: no live command can be using it
        return int(text) if text else None
    finally:
        os.close(handle)


def _names(path: Path, parent: int, handle: int) -> bool:
    """`path` still names the file open as `handle` (not removed, nor replaced, by another command)."""
    try:
        named = os.stat(path.name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return False
    mine = os.fstat(handle)
    return (named.st_dev, named.st_ino) == (mine.st_dev, mine.st_ino)


def _check_owned(real: Path, shown: Path, *, during: bool = False) -> None:
    """Empty, or holding only what a manifest of the harness lists; else refused, saying what to do."""
    if not real.exists():
        return
    present = entries_of(real)
    manifest = real / MANIFEST
    if not manifest.is_file() or manifest.is_symlink():
        if not present:
            return
        raise InputError(
            f"--out {shown} is not empty and was not written by seqthink-conformance (no {MANIFEST}; holds "
            f"{_some(present)}): choose an empty or new folder, or remove it"
        )
    listed = set(read_model(manifest, Manifest, what=f"the manifest of --out {shown}").entries)
    foreign = [entry for entry in present if entry not in listed]
    if foreign:
        when = "appeared during the run" if during else "were not written by seqthink-conformance"
        raise InputError(
            f"--out {shown} holds files that {when} ({_some(foreign)}): move them away, or choose an empty "
            "or new folder"
        )


def _some(entries: list[str]) -> str:
    return first_and_more(entries, _SHOWN)


def _write_manifest(folder: Path, manifest: Manifest) -> None:
    create_file(folder / MANIFEST, manifest.model_dump_json(indent=1) + "\n", replace=True)
