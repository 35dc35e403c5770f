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
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.core.errors import InputError
from conformance.core.inputs import read_model

MANIFEST: Final = ".seqthink-conformance.json"
"""The manifest in every folder the harness wrote: the paths it wrote there, nothing else."""
MANIFEST_FORMAT: Final = "seqthink-conformance-out/1"
_STAGING: Final = "seqthink-staging"
_OLD: Final = "seqthink-old"
_LOCK: Final = "seqthink-lock"
_SHOWN: Final = 3


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
        self._lock = _lock(self.real.parent / f".{self.real.name}.{_LOCK}", self.path)
        _check_owned(self.real, self.path)
        self._remove_leftovers()  # after the check: a refused command leaves a kept staging folder alone
        self.staging.mkdir()
        _write_manifest(self.staging, Manifest(command=self.command))

    def commit(self) -> None:
        """The staged output replaces the folder's: what its manifest lists goes, nothing else."""
        _write_manifest(self.staging, Manifest(command=self.command, entries=entries_of(self.staging)))
        if self.real.exists():
            try:
                _check_owned(self.real, self.path, during=True)
            except InputError as exc:
                self.kept = True
                raise InputError(f"{exc}; this run's output is in {self.staging}") from None
            old = self.real.parent / f".{self.real.name}.{_OLD}-{os.getpid()}"
            os.rename(self.real, old)
            os.rename(self.staging, self.real)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(self.staging, self.real)
        self.committed = True

    def release(self) -> None:
        """Discard an uncommitted staging folder (and the parents made for it); unlock."""
        if not self.committed and not self.kept:
            shutil.rmtree(self.staging, ignore_errors=True)
        if self._lock is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.real.parent / f".{self.real.name}.{_LOCK}")
            os.close(self._lock)
            self._lock = None
        if not self.committed and not self.kept:
            for made in reversed(self._created):
                with contextlib.suppress(OSError):
                    made.rmdir()

    def _remove_leftovers(self) -> None:
        """Staging and replaced folders of a command that was killed: ours by name and manifest (the lock
        says no command is using them)."""
        for stem in (_STAGING, _OLD):
            for leftover in self.real.parent.glob(f".{self.real.name}.{stem}-*"):
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
    """`text` into `path` all at once (a temporary file beside it, renamed): a reader sees the old file or
    the new one, never half of one. An existing file is kept, and refused, unless `replace`."""
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a file")
    if not replace and (path.exists() or path.is_symlink()):
        raise InputError(f"{path} exists and is not replaced: {hint}")
    scratch = path.parent / f".{path.name}.{_STAGING}-{os.getpid()}"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch.write_text(text, encoding="utf-8")
        if replace:
            os.replace(scratch, path)
        else:
            os.link(scratch, path)  # fails rather than overwrite a file that appeared meanwhile
    except FileExistsError:
        raise InputError(f"{path} exists and is not replaced: {hint}") from None
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(OSError):
            scratch.unlink()


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


def _lock(path: Path, shown: Path) -> int:
    """An exclusive lock on a file beside the folder, held while the command runs (the system drops it if
    the command dies), the holder's pid in it for the message of a second command."""
    for _ in range(5):
        try:
            handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise InputError(f"cannot write beside --out {shown}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(handle, 20).decode("ascii", "replace").strip() or "unknown"
            os.close(handle)
            raise InputError(
                f"--out {shown} is being written by another run (pid {holder}): wait for it to finish, "
                "or choose another --out"
            ) from None
        try:
            same = os.fstat(handle).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:  # not a lock file its last holder removed while this one was opening it
            os.ftruncate(handle, 0)
            os.write(handle, str(os.getpid()).encode())
            return handle
        os.close(handle)
    raise InputError(f"--out {shown}: cannot take its lock (another run keeps replacing it)")


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
    shown = ", ".join(entries[:_SHOWN])
    return shown + (f" and {len(entries) - _SHOWN} more" if len(entries) > _SHOWN else "")


def _write_manifest(folder: Path, manifest: Manifest) -> None:
    (folder / MANIFEST).write_text(manifest.model_dump_json(indent=1) + "\n", encoding="utf-8")
