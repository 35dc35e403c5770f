"""Spawning servers in their own process group and making sure the whole group is gone afterwards.

Every server runs as the leader of a new session, so one `killpg` reaches it and any children it
started; a Ctrl-C on the terminal does not reach it, so the harness must (and does) end it itself.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from conformance.drivers import workfolder
from conformance.drivers.errors import TargetError

_lock = threading.Lock()
_started = 0
_live_groups: set[int] = set()

RESET_SIGNALS: Final = tuple(
    getattr(signal, name)
    for name in ("SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGUSR1", "SIGUSR2", "SIGALRM")
    if hasattr(signal, name)
)
"""Signals a server starts with at their default action whatever the harness inherited (`nohup` ignores
SIGHUP, a shell's `&` SIGINT and SIGQUIT): an ignored disposition survives exec, so the server would not end
on a signal the original ends on (RTE-10). SIGPIPE and SIGXFSZ are Popen's `restore_signals`; the job-control
signals stay as inherited (a handler in place of SIG_IGN would change the harness's own terminal writes)."""


def _still_ignored(signum: int, frame: object) -> None:
    """Stands for SIG_IGN in the harness: a handled signal is reset to its default on exec, an ignored one
    is not, so the harness keeps ignoring what it was told to and its servers start clean."""


def ignores(handler: object) -> bool:
    """Whether a signal's handler (`signal.getsignal`) ignores it: SIG_IGN, or `_still_ignored` standing for
    it."""
    return handler == signal.SIG_IGN or handler is _still_ignored


def handle_ignored_signals() -> list[int]:
    """Turn every inherited SIG_IGN of `RESET_SIGNALS` into `_still_ignored` (main thread only); the signals
    changed. Done on import and again before each spawn from the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return []
    changed = []
    for signum in RESET_SIGNALS:
        with contextlib.suppress(OSError, ValueError):
            if signal.getsignal(signum) == signal.SIG_IGN:
                signal.signal(signum, _still_ignored)
                changed.append(signum)
    return changed


def _ignored_signals() -> list[int]:
    return [signum for signum in RESET_SIGNALS if signal.getsignal(signum) == signal.SIG_IGN]


_RESET_THEN_EXEC: Final = (
    "import os, signal, sys\n"
    "for s in sys.argv[1].split(','): signal.signal(int(s), signal.SIG_DFL)\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)
"""What a server is started through when a signal is ignored and the spawn is not on the main thread (so the
harness's own disposition cannot be changed): resets them, then becomes the server (same pid)."""


def reset_signals_argv(argv: list[str]) -> list[str]:
    """`argv`, or a trampoline that resets the signals this process still ignores and execs `argv`."""
    handle_ignored_signals()
    ignored = _ignored_signals()
    if not ignored:
        return argv
    if shutil.which(argv[0]) is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv[0])
    return [sys.executable, "-I", "-S", "-c", _RESET_THEN_EXEC, ",".join(map(str, ignored)), *argv]


handle_ignored_signals()


def processes_started() -> int:
    """How many server processes this interpreter has started (quoted by benchmarks and reports)."""
    return _started


def merged_env(env: Mapping[str, str] | None) -> dict[str, str]:
    """The environment a server gets: ours, with the target's extra variables on top."""
    return {**os.environ, **(env or {})}


def prepared(
    command: Sequence[str],
    env: Mapping[str, str] | None,
    *,
    exact_env: bool = False,
    cwd: str | None = None,
    own_home: bool = False,
) -> tuple[list[str], dict[str, str], str, workfolder.WorkFolder]:
    """What a server process is started with: its arguments (anchored to our folder when it starts in one
    made for it), its environment (its server's temp folder and HOME, its own with `own_home`, under the
    target's variables) and its folder (`cwd` when the caller gives one, else its server's in this run), and
    those folders, bound to its pid by the caller (`workfolder.bind`)."""
    server = (*command, "\0", *(f"{k}={v}" for k, v in sorted((env or {}).items())))
    folder = workfolder.made(own_home=own_home, server=server)
    argv = list(command) if cwd is not None else list(workfolder.anchored(command))
    started = workfolder.started_env(folder, env or {})
    folder_in = cwd if cwd is not None else str(folder.cwd)
    return argv, started if exact_env else workfolder.unshared(merged_env(started)), folder_in, folder


def spawn(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    exact_env: bool = False,
    discard_stderr: bool = False,
    cwd: str | None = None,
    own_home: bool = False,
) -> subprocess.Popen[bytes]:
    """Start `command` with unbuffered stdio pipes, as leader of a new session and process group, with the
    signals of `RESET_SIGNALS` at their defaults, in its server's folder for this run with a temp folder
    (`workfolder`: its files are seen by the server's later processes, never by another run's).

    `exact_env`: `env` is the whole environment (records about the start environment), not extra variables
    on top of ours. `cwd`: the folder it starts in, kept (its own when None). `own_home`: folders (HOME too)
    of its own, not its server's. Every start is counted, whoever asks for it.
    """
    if not command:
        raise TargetError("empty server command")
    argv, started_env, folder_in, folder = prepared(command, env, exact_env=exact_env, cwd=cwd,
                                                    own_home=own_home)
    try:
        proc = subprocess.Popen(
            reset_signals_argv(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if discard_stderr else subprocess.PIPE,
            bufsize=0,
            env=started_env,
            start_new_session=True,
            cwd=folder_in,
        )
    except OSError as exc:
        if not folder.server:
            workfolder.remove(folder.path)
        raise TargetError(f"cannot start {shlex.join(argv)}: {exc.strerror or exc}") from None
    workfolder.bind(proc.pid, folder)
    register_group(proc.pid)
    return proc


def register_group(pgid: int | None) -> None:
    """Count a started server and remember its group (when known), so interpreter exit can still kill it."""
    global _started
    with _lock:
        _started += 1
        if pgid is not None:
            _live_groups.add(pgid)


def forget_group(pgid: int) -> None:
    """The group `pgid` is ended: no longer killed at exit, and its folders are removed (`workfolder`)."""
    with _lock:
        _live_groups.discard(pgid)
    workfolder.finish(pgid)


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes in group `pgid`.

    Zombies count as gone: in containers whose init never reaps orphans they linger forever. A group the
    kernel says is empty (`killpg(pgid, 0)`: no such process, zombies included) is not looked for in /proc:
    that is the usual answer once a server has ended, and a scan reads every process's stat on the machine
    (each ending waits on it several times).
    """
    proc_root = Path("/proc")
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return []
    except PermissionError:
        if not proc_root.is_dir():
            return []
    if not proc_root.is_dir():
        return [pgid]
    members: list[int] = []
    for entry in os.listdir(proc_root):
        if not entry.isdigit():
            continue
        try:
            stat = (proc_root / entry / "stat").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            members.append(int(entry))
    return members


def group_rss_bytes(pgid: int) -> int | None:
    """Resident memory (VmRSS) summed over the live processes of group `pgid`; None where /proc cannot say."""
    total = 0
    found = False
    for pid in group_members(pgid):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
                found = True
                break
    return total if found else None


def signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _wait_group(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Whether the leader exited and no member of its group is left within `timeout`."""
    deadline = time.monotonic() + timeout
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        return False
    while group_members(proc.pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def _settle_group(pgid: int, timeout: float) -> None:
    """Wait until SIGKILLed members are really gone: on a loaded machine their exit lags the signal."""
    deadline = time.monotonic() + timeout
    while group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.01)


def terminate(
    proc: subprocess.Popen[bytes], *, eof_grace: float = 0.2, term_grace: float = 1.0
) -> int | None:
    """End a server and its whole group: close stdin, then SIGTERM, then SIGKILL; returns the exit status.

    The SIGKILL step sits in a `finally`, so even a second Ctrl-C during the grace periods leaves
    nothing running.
    """
    pgid = proc.pid
    try:
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        if _wait_group(proc, eof_grace):
            return proc.returncode
        signal_group(pgid, signal.SIGTERM)
        _wait_group(proc, term_grace)
    finally:
        if proc.poll() is None or group_members(pgid):
            signal_group(pgid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5.0)
        _settle_group(pgid, 5.0)
        end_pipe_holders(proc)
        forget_group(pgid)
    return proc.returncode


def _writers_left(proc: subprocess.Popen[bytes]) -> list[int]:
    """The read ends (stdout, stderr) of `proc` that some process still holds open for writing: a pipe whose
    writers are all gone polls as hung up."""
    held = []
    for stream in (proc.stdout, proc.stderr):
        if stream is None or stream.closed:
            continue
        poller = select.poll()
        poller.register(stream.fileno(), select.POLLIN | select.POLLHUP)
        events = dict(poller.poll(0)).get(stream.fileno(), 0)
        if not events & select.POLLHUP:
            held.append(stream.fileno())
    return held


def pipe_holders(fds: list[int]) -> list[int]:
    """Processes of ours (not this one) holding the pipes of `fds` open (found through /proc)."""
    inodes = {f"pipe:[{os.fstat(fd).st_ino}]" for fd in fds}
    me, uid = os.getpid(), os.getuid()
    found = []
    proc_root = Path("/proc")
    for entry in os.listdir(proc_root) if proc_root.is_dir() else ():
        if not entry.isdigit() or int(entry) == me:
            continue
        folder = proc_root / entry
        try:
            if folder.stat().st_uid != uid:
                continue
            links = {os.readlink(folder / "fd" / fd) for fd in os.listdir(folder / "fd")}
        except OSError:
            continue
        if links & inodes:
            found.append(int(entry))
    return found


def end_pipe_holders(proc: subprocess.Popen[bytes], timeout: float = 5.0) -> list[int]:
    """SIGKILL whatever still holds the server's stdout or stderr once its group is gone: a descendant that
    left the group (`setsid`, a daemonizing double fork) and kept the pipes. Costs one poll when none did."""
    ended: list[int] = []
    deadline = time.monotonic() + timeout
    while (held := _writers_left(proc)) and time.monotonic() < deadline:
        holders = pipe_holders(held)
        if not holders:
            time.sleep(0.01)  # an exiting holder: its fds close a moment after the signal
            continue
        for pid in holders:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            if pid not in ended:
                ended.append(pid)
        time.sleep(0.01)
    return ended


def kill_group_now(pgid: int, settle: float = 5.0) -> None:
    """Last-resort kill of a group that is still alive; returns once its members are gone (`settle` seconds at
    most): a SIGKILLed process lingers a moment on a loaded machine, and the caller says nothing is left."""
    if group_members(pgid):
        signal_group(pgid, signal.SIGKILL)
        _settle_group(pgid, settle)


def exit_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit, so a CI runner cancelling the harness still runs every driver's cleanup.

    Python's default SIGTERM action ends the interpreter on the spot, skipping `finally` blocks and
    atexit, and servers live in their own sessions, out of reach of the runner's signal. Call it from
    the main thread of an entry point (the CLI), not from library code.
    """
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


@atexit.register
def _kill_leftovers() -> None:
    with _lock:
        groups = list(_live_groups)
        _live_groups.clear()
    for pgid in groups:
        signal_group(pgid, signal.SIGKILL)
    if groups:
        print(
            f"conformance: killed {len(groups)} server process group(s) left running at exit", file=sys.stderr
        )
