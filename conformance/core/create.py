"""Every file and folder the harness creates is created here: new (an entry already at its name is never
reused, written into or emptied) and never through a symlink, each name resolved in its folder's own
descriptor. A fork's checkout can carry a symlink at any name the harness writes; it meets a refusal.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Final

from conformance.core.errors import NO_SPACE_ERRNOS, HarnessError, InputError, NoSpaceError
from conformance.core.printable import encoded

SCRATCH: Final = "seqthink-staging"
"""The infix of the scratch file a whole file is written to before it takes its name."""

_NEW: Final = os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_FOLDER: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class CreateError(InputError):
    """A name the harness would create is taken (by a symlink, a file or a folder it did not create), or
    cannot be created (CLI exit status 4: nothing is written through it)."""


def cannot(verb: str, path: Path, exc: OSError) -> HarnessError:
    """The one line for a name that cannot be created or written: a full device said as such."""
    if exc.errno in NO_SPACE_ERRNOS:
        return NoSpaceError(f"no space left on device: {path}")
    return CreateError(f"cannot {verb} {path}: {exc.strerror or exc}")


def taken(path: Path, why: str = "") -> CreateError:
    """The one line for a name that is already there."""
    kind = "a symlink" if path.is_symlink() else "a folder" if path.is_dir() else "a file"
    return CreateError(
        f"{path} is already there ({kind}{why}): the harness creates its files new and never writes through "
        "a link; remove it, or choose another path"
    )


@contextlib.contextmanager
def folder_fd(folder: Path) -> Iterator[int]:
    """The folder's descriptor: names created relative to it cannot be redirected by a rename of a parent."""
    try:
        fd = os.open(folder, _FOLDER)
    except OSError as exc:
        raise CreateError(f"cannot write in {folder}: {exc.strerror or exc}") from None
    try:
        yield fd
    finally:
        os.close(fd)


def new_fd(path: Path, *, dir_fd: int | None = None, read: bool = False) -> int:
    """A descriptor on a new, empty regular file at `path` (its name alone when `dir_fd` is given),
    write-only unless `read`."""
    name = path.name if dir_fd is not None else path
    try:
        return os.open(name, _NEW | (os.O_RDWR if read else os.O_WRONLY), 0o644, dir_fd=dir_fd)
    except FileExistsError:
        raise taken(path) from None
    except OSError as exc:
        raise cannot("create", path, exc) from None


def create_folder(path: Path) -> None:
    """A new folder at `path` (mkdir never follows a symlink: one there, dangling or not, is refused)."""
    with folder_fd(path.parent) as parent:
        try:
            os.mkdir(path.name, 0o777, dir_fd=parent)
        except FileExistsError:
            raise taken(path) from None
        except OSError as exc:
            raise cannot("create", path, exc) from None


def ensure_folder(path: Path) -> None:
    """`path` as a folder the harness writes in: made (parents too) when missing; a symlink is refused."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        if not path.parent.is_dir():  # an ancestor already there is taken as it is: the user's path
            ensure_folder(path.parent)
        try:
            create_folder(path)
        except CreateError:
            if not (path.exists() or path.is_symlink()):
                raise
        found = os.lstat(path)  # made, or made meanwhile by a thread writing beside this one
    if not stat.S_ISDIR(found.st_mode):
        raise taken(path, ", not a folder the harness made")


def create_file(path: Path, data: str | bytes, *, replace: bool = False) -> None:
    """`data` into `path` whole: written to a scratch file created new beside it, which then takes the name
    (linked when the name must be new, renamed over it when `replace`: an entry there, a symlink included,
    is replaced, never written through). Text is UTF-8, a code point it cannot carry (a server's lone
    surrogate) written as its backslash escape: in a JSON file JSON's own, in prose a visible one."""
    payload = encoded(data) if isinstance(data, str) else data
    scratch = path.parent / f".{path.name}.{SCRATCH}-{os.getpid()}"
    with folder_fd(path.parent) as parent:
        fd = new_fd(scratch, dir_fd=parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(payload)
            if replace:
                os.replace(scratch.name, path.name, src_dir_fd=parent, dst_dir_fd=parent)
            else:
                os.link(scratch.name, path.name, src_dir_fd=parent, dst_dir_fd=parent, follow_symlinks=False)
        except FileExistsError:
            raise taken(path) from None
        except OSError as exc:
            raise cannot("write", path, exc) from None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(scratch.name, dir_fd=parent)


def open_new(path: Path) -> IO[bytes]:
    """A new file at `path` to write as it goes (a log): created new, never through a symlink."""
    with folder_fd(path.parent) as parent:
        return os.fdopen(new_fd(path, dir_fd=parent), "wb")


def open_append(path: Path) -> IO[bytes]:
    """`path` to append to (a transcript several writers of one run extend): created when missing; an
    existing entry is used only when it is a plain file of its own (a symlink, a folder, a FIFO or a file
    linked under another name is refused)."""
    with folder_fd(path.parent) as parent:
        try:
            fd = os.open(path.name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                         | os.O_CLOEXEC, 0o644, dir_fd=parent)
        except OSError as exc:
            if path.is_symlink():
                raise taken(path) from None
            raise cannot("create", path, exc) from None
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode) or found.st_nlink != 1:
        os.close(fd)
        raise taken(path, ", not a plain file of its own")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "ab")


def copy_file(source: Path, dest: Path) -> None:
    """A plain file's bytes into a new file at `dest`, in chunks (neither end through a symlink)."""
    try:
        reading = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise cannot("copy", source, exc) from None
    with os.fdopen(reading, "rb") as handle:
        if not stat.S_ISREG(os.fstat(reading).st_mode):
            raise CreateError(f"cannot copy {source}: not a plain file")
        try:
            with open_new(dest) as writing:
                while chunk := handle.read(2**20):
                    writing.write(chunk)
        except OSError as exc:
            raise cannot("write", dest, exc) from None


def copy_tree(source: Path, dest: Path) -> None:
    """A folder's plain files and folders into a new folder `dest`; symlinks (and FIFOs, devices, sockets)
    in it are neither copied nor followed."""
    ensure_folder(dest.parent)
    create_folder(dest)
    for entry in sorted(os.scandir(source), key=lambda e: e.name):
        if entry.is_dir(follow_symlinks=False):
            copy_tree(Path(entry.path), dest / entry.name)
        elif entry.is_file(follow_symlinks=False):
            copy_file(Path(entry.path), dest / entry.name)
