"""A working folder for every server the harness starts, so that no server's files leak from one run to
the next or into the folder the run was started in, while a store a server keeps in files is still seen
carried from one of its processes to the next within a run (LOOP-A: the original keeps none).

The processes of one server (one command and environment) in a run start in one folder made for that server
(their current folder, `./`) with one temp folder (`TMPDIR`, `TEMP`, `TMP`) and one HOME (`HOME`,
`USERPROFILE`, `XDG_*_HOME`): a server making `~/.its-store/` at start-up writes nothing into the user's HOME
(a task orchestrator's `~/.task-orchestrator/storage/`, made by the preflight's process and left behind).
The caches and tool homes a launcher reads under the user's HOME (npm's, uv's, pyenv's, rustup's, a
`pip install --user`'s) stay where they are, named by their own variables (`KEPT_HOMES`), so a server
started through them still starts offline. These folders are in the run's folder: the
`seqthink-run-*` folder `run` makes in the system temp folder for its state (named to its pytest workers by
`RUN_FOLDER_ENV`, each interpreter in a folder of its own there), else one made on the first start; the raw
processes' shared HOME sandbox (`suite/rawproc.py`) lives there too. A process given folders of its own (a
tool beside sequentialthinking, called on a process of its own) has folders of its own, listed and removed
when the harness ends it (`finish`); a server's, when the interpreter exits or the run's folder is left.
Only folders the harness made are removed, never one given to it (a `cwd` the caller names), and a link a
server left inside is removed as a link, never followed. What a process's folders held is kept (bounded) for
ABS-1's check (`written`), which says each file as `./name`, `$TMPDIR/name` or `$HOME/name`. A command's
arguments naming an existing path relative to the run's folder are made absolute first (`anchored`): the
server still finds its script.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

TEMP_VARIABLES: Final = ("TMPDIR", "TEMP", "TMP")
"""Where a process looks for its temp folder (POSIX, then the names Windows-born code reads)."""
HOME_VARIABLES: Final = ("HOME", "USERPROFILE", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
                         "XDG_CACHE_HOME")
"""Where a process looks for its user's files: set to its server's HOME folder in the run."""
KEPT_HOMES: Final = (("npm_config_cache", ".npm"), ("PYTHONUSERBASE", ".local"),
                     ("UV_CACHE_DIR", ".cache/uv"), ("PYENV_ROOT", ".pyenv"), ("RUSTUP_HOME", ".rustup"),
                     ("CARGO_HOME", ".cargo"), ("NVM_DIR", ".nvm"), ("DENO_DIR", ".cache/deno"),
                     ("BUN_INSTALL", ".bun"))
"""A launcher's cache or tool home under the user's HOME, by the variable that names it where it is: kept
where it is (its variable set to it, when it exists and the variable is unset), so `npx`, `uvx`, a pyenv or
rustup shim and a `pip install --user` package still start a server from what is installed."""
ROOT_PREFIX: Final = "seqthink-run-"
RUN_FOLDER_ENV: Final = "SEQTHINK_CONFORMANCE_RUN_FOLDER"
"""The run's folder, for the interpreters it starts (pytest workers); never passed on to a server."""
KEPT_FILES: Final = 64
"""Files of one folder kept as what it held, at most (the rest counted)."""
WALKED: Final = 4000
"""Entries looked at in one folder when it is listed, at most: a server filling it is not walked whole."""
DEPTH: Final = 8
"""Folders deep a listing goes."""
CWD: Final = "."
TMP: Final = "$TMPDIR"
HOME: Final = "$HOME"


@dataclass(frozen=True)
class WorkFolder:
    """The folders made for one process: `cwd` its current folder, `tmp` its temp folder, `home` its HOME;
    `own_home`: its own, not its server's."""

    path: Path
    own_home: bool = False
    server: bool = False
    """Shared by every process of one server in the run: kept when one of them ends."""

    @property
    def cwd(self) -> Path:
        return self.path / "cwd"

    @property
    def tmp(self) -> Path:
        return self.path / "tmp"

    @property
    def home(self) -> Path:
        return self.path / "home"

    def env(self) -> dict[str, str]:
        """The variables that point the process at its folders, and at the launchers' homes it keeps."""
        out = {name: str(self.tmp) for name in TEMP_VARIABLES}
        out.update({name: str(self.home) for name in HOME_VARIABLES})
        out.update(kept_homes())
        return out

    def parts(self) -> tuple[tuple[str, Path], ...]:
        return (CWD, self.cwd), (TMP, self.tmp), (HOME, self.home)


def kept_homes(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """`KEPT_HOMES` that exist under the user's HOME and that `environ` (ours) does not set already."""
    env = os.environ if environ is None else environ
    home = env.get("HOME", "")
    if not home:
        return {}
    found = {name: os.path.join(home, below) for name, below in KEPT_HOMES if name not in env}
    return {name: path for name, path in found.items() if os.path.isdir(path)}


@dataclass(frozen=True)
class Written:
    """What one process's folders held: each file as `./name`, `$TMPDIR/name` or `$HOME/name`, and how many
    more there were."""

    files: tuple[str, ...]
    more: int = 0


_lock = threading.Lock()
_root: Path | None = None
_serial = 0
_live: dict[int, WorkFolder] = {}
_servers: dict[tuple[str, ...], WorkFolder] = {}
_left: dict[int, Written] = {}


def run_root() -> Path:
    """This interpreter's folder in the run's folder (made on first use, this user's only): in the folder
    `RUN_FOLDER_ENV` names when it is a folder of this user's, else in a new `seqthink-run-*` one."""
    global _root
    with _lock:
        if _root is None:
            given = os.environ.get(RUN_FOLDER_ENV, "")
            _root = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=given) if _ours(given)
                         else tempfile.mkdtemp(prefix=ROOT_PREFIX))
        return _root


def _ours(folder: str) -> bool:
    """A real folder (no link) of this user's, writable by no one else."""
    try:
        found = os.lstat(folder) if folder else None
    except OSError:
        return False
    return (found is not None and stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid()
            and not found.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


@contextlib.contextmanager
def run_folder(folder: Path) -> Iterator[None]:
    """Servers started meanwhile, here and in the interpreters started meanwhile, have their folders in
    `folder` (the run's state, which its owner removes): what `run` does around everything it starts."""
    global _root
    before = os.environ.get(RUN_FOLDER_ENV)
    with _lock:
        previous, _root = _root, None
    os.environ[RUN_FOLDER_ENV] = str(folder)
    try:
        yield
    finally:
        with _lock:
            mine, _root = _root, previous
            if mine is not None:
                for key in [key for key in _servers if key[0] == str(mine / "servers")]:
                    del _servers[key]
        if before is None:
            os.environ.pop(RUN_FOLDER_ENV, None)
        else:
            os.environ[RUN_FOLDER_ENV] = before
        if mine is not None:
            remove(mine)


def shared(name: str) -> Path:
    """A folder of the run's own under its folder (the raw processes' HOME sandbox), made if missing."""
    folder = run_root() / name
    folder.mkdir(exist_ok=True)
    return folder


def made(*, own_home: bool = False, server: tuple[str, ...] | None = None) -> WorkFolder:
    """The folders for one process: those of `server` (its command and environment) in this run, made on its
    first start; new ones with `own_home` (folders of its own) or when no server is named."""
    global _serial
    root = run_root() / "servers"
    key = None if own_home or server is None else (str(root), *server)
    with _lock:
        known = _servers.get(key) if key is not None else None
        if known is not None and known.path.is_dir():
            return known
        _serial += 1
        serial = _serial
    root.mkdir(exist_ok=True)
    folder = WorkFolder(root / f"{serial:05d}", own_home, server=key is not None)
    folder.path.mkdir()
    for _, part in folder.parts():
        part.mkdir()
    if key is not None:
        with _lock:
            _servers[key] = folder
    return folder


def bind(pid: int, folder: WorkFolder) -> None:
    """`folder` is the process `pid`'s, removed when it ends (`finish`)."""
    with _lock:
        _live[pid] = folder
        _left.pop(pid, None)


def written(pid: int) -> Written | None:
    """What process `pid`'s folders hold (still running) or held when removed; None when the harness made
    none for it."""
    with _lock:
        folder = _live.get(pid)
        left = _left.get(pid)
    return listed(folder) if folder is not None else left


def finish(pid: int) -> None:
    """Keep what process `pid`'s folders hold, then remove them unless they are its server's, which its
    later processes start in (nothing when the harness made none)."""
    with _lock:
        folder = _live.pop(pid, None)
    if folder is None:
        return
    held = listed(folder)
    with _lock:
        _left[pid] = held
    if not folder.server:
        remove(folder.path)


def listed(folder: WorkFolder) -> Written:
    """The regular files and links under each of `folder`'s parts, by name under it, bounded."""
    files: list[str] = []
    more = 0
    walked = 0
    for label, part in folder.parts():
        stack: list[tuple[Path, int]] = [(part, 0)]
        while stack and walked < WALKED:
            here, depth = stack.pop()
            try:
                with os.scandir(here) as entries:
                    found = sorted(entries, key=lambda entry: entry.name)
            except OSError:
                continue
            for entry in found:
                walked += 1
                if walked > WALKED:
                    more += 1
                    break
                if entry.is_dir(follow_symlinks=False):
                    if depth + 1 < DEPTH:
                        stack.append((Path(entry.path), depth + 1))
                    continue
                name = f"{label}/{Path(entry.path).relative_to(part).as_posix()}"
                if len(files) < KEPT_FILES:
                    files.append(name)
                else:
                    more += 1
    return Written(tuple(sorted(files)), more)


def remove(path: Path) -> None:
    """Remove a folder the harness made, whatever a server did inside it: a folder it made unwritable is
    made writable again (by its own mode, never through a link), a link is removed, not followed."""
    with contextlib.suppress(OSError):
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            return
    shutil.rmtree(path, ignore_errors=True)
    if not os.path.lexists(path):
        return
    with contextlib.suppress(OSError):
        os.chmod(path, stat.S_IRWXU)
    for here, folders, _ in os.walk(path, followlinks=False):
        for name in (here, *(os.path.join(here, f) for f in folders)):
            with contextlib.suppress(OSError):
                if stat.S_ISDIR(os.lstat(name).st_mode):
                    os.chmod(name, stat.S_IRWXU)
    shutil.rmtree(path, ignore_errors=True)


def anchored(command: Sequence[str], start: str | None = None) -> tuple[str, ...]:
    """`command` with each part naming a file, or a path with a folder in it, relative to `start` (the
    run's folder when None) made absolute: it still starts from the folder made for it (a `cmd:` target's
    `server.py` or `dist/index.js`). A module name (`-m reference_server`) and a bare folder's name stay as
    given."""
    base = start if start is not None else os.getcwd()
    out: list[str] = []
    for part in command:
        module = bool(out) and out[-1] == "-m"
        resolved = os.path.join(base, part)
        path = os.path.isfile(resolved) or (os.sep in part and os.path.exists(resolved))
        relative = bool(part) and path and not module and not os.path.isabs(part)
        out.append(os.path.abspath(resolved) if relative else part)
    return tuple(out)


def started_env(folder: WorkFolder, env: Mapping[str, str]) -> dict[str, str]:
    """`env` with the process's own folders in it; a variable `env` already sets (the user's `TMPDIR=…` in
    the target, the start environment a check gives) stays as set."""
    return {**folder.env(), **env}


def unshared(env: Mapping[str, str]) -> dict[str, str]:
    """A server's environment without the harness's own word for its run's folder."""
    return {name: value for name, value in env.items() if name != RUN_FOLDER_ENV}


@atexit.register
def _remove_run() -> None:
    global _root
    with _lock:
        live = list(_live)
        root = _root
        _root = None
    for pid in live:
        finish(pid)
    if root is not None:
        remove(root)


__all__ = ["CWD", "HOME", "HOME_VARIABLES", "KEPT_HOMES", "RUN_FOLDER_ENV", "TEMP_VARIABLES", "TMP",
           "WorkFolder", "Written", "anchored", "bind", "finish", "kept_homes", "listed", "made", "remove",
           "run_folder", "run_root", "shared", "started_env", "unshared", "written"]
