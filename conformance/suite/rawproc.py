"""A bare server process for records about the process itself (exit status, signals, a closed or discarded
pipe), which the shared drivers deliberately never do to a server.

Raw processes are pooled (`RawPool.lend`) so that one process serves many checks over its life: first
those that need it pristine (the banner, a fresh run), then those that only need bare pipes (framing, one
loop), and last one check that ends it (closed stdin or stdout, a signal: `spend=True`). A process another
check started with an environment of its own (a colour row's) is handed over (`RawPool.donate`) once that
check is done with it: the checks that end a process run last and take those before starting one. Every
process of a pool starts in the pool's one sandbox of empty HOME and XDG folders (`RawPool.sandbox_root`,
in the run's folder) and, as every server process, in its server's working folder and temp folder for
the run (`drivers/workfolder.py`), so that "nothing is written to disk" (ABS-1) is observed over all of
them. The run holds one pool (the plugin's run state); checks reach it through the `raw_pool` fixture.
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import signal
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Final

from conformance.core.arguments_map import Renamer
from conformance.core.eras import RefusedOffer, offered_next
from conformance.core.errors import HarnessError
from conformance.core.idle import IDLE_HOLD
from conformance.core.jsontypes import JSON
from conformance.core.protocol import CLIENT_INFO, PROTOCOL_VERSION
from conformance.drivers import process, workfolder
from conformance.drivers.ending import STDIN_END, end_bound, pace_after, paced_end
from conformance.drivers.errors import FrameTooLarge
from conformance.drivers.late_banner import STARTUP_LATE, learnable, startup_part
from conformance.drivers.named_files import Named, changed_at_named
from conformance.drivers.wire import (
    SETTLE_BYTES,
    SETTLE_LIMIT,
    SETTLE_MISSES,
    SETTLE_QUIET,
    box_open,
    boxes_closed,
    boxes_due,
    line_open,
    max_frame,
    settle,
    settle_lines,
    settle_startup,
    startup_first,
    streamed,
)
from conformance.suite.beside_script import Listing, listings, replaced_since, script_folders, written_since
from conformance.suite.contradiction import brief, response_line
from conformance.targets.specs import Target

_Key = tuple[tuple[str, ...], tuple[tuple[str, str], ...], bool]
_TargetKey = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]

FRAMES_KEPT: Final = 256
"""Frames written to raw processes kept for a failing check's replay (a check writes a handful)."""
FRAME_KEPT_BYTES: Final = 1 << 16
"""A longer frame (a flood, a huge thought) is not kept: a check writing one keeps no replay."""
STDERR_QUIET: Final = 0.05
"""A stderr read goes on while more arrives within this (seconds), or while its last line is unfinished."""
STDERR_READ_LIMIT: Final = 0.5
"""One stderr read ends this long after its first bytes, however they keep coming (a heartbeat)."""
STDERR_READ_BYTES: Final = 1 << 20
"""One stderr read keeps at most this many bytes; the rest stays in the pipe for the next (a flood)."""
SEEN_BYTES: Final = 1 << 20
"""`RawServer.seen` keeps a process's first this many stderr bytes (the banner and the first boxes)."""
NUDGE: Final = 0.5
"""Seconds between the requests `RawServer.wait_for_end` writes while it waits (not how long it waits)."""
_HOLD_POLL: Final = 0.1
"""How often `hold_idle` looks at the processes it holds while it waits."""
_TOOL_CALLS_KEPT: Final = 4096
"""Unanswered tools/call ids a process keeps (`RawServer.boxes_answered`): bounded however many are sent."""
SANDBOXED = ("HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")
"""The variables naming the pool's one sandbox's folders; each server's temp folder is its own."""
FOLDERS_SAID: Final = ("./ is the server's working folder and $TMPDIR its temp folder, each made for its "
                       "processes in this run and removed at its end")
"""What ABS-1's list of files means by `./` and `$TMPDIR` (`workfolder.Written`)."""
NAMED_SAID: Final = ("files at paths its own stderr named, outside every folder made for the server, were "
                     "changed during this run")
"""What ABS-1 says of the files it found at paths a server's stderr named (`drivers/named_files.py`)."""


def _as_variable(path: Path) -> str:
    """A sandbox file's path under the variable naming its folder: `xdg_data_home/a` as `$XDG_DATA_HOME/a`."""
    first, *rest = path.parts
    return "/".join([f"${first.upper()}", *rest])


def target_key(target: Target) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """A target's command and extra environment: which processes of the pool (and fresh runs) are its."""
    return tuple(target.command), tuple(sorted(target.env.items()))


def clock_key(line: bytes) -> bytes:
    """A stderr line as clock lines are compared: stripped, every digit a 0 (a time stamp, a beat's count)."""
    return re.sub(rb"\d", b"0", line.strip())


def without_clock_lines(written: bytes, clock: frozenset[bytes]) -> bytes:
    """`written` without the lines that read as clock lines (`RawPool.clock_lines`); the rest as written."""
    if not clock:
        return written
    kept = [line for line in written.split(b"\n") if not line.strip() or clock_key(line) not in clock]
    return b"\n".join(kept)


class RawPool:
    """The run's raw processes, idle between checks, and the one sandbox they all start in.

    Held by the plugin's run state for one session and closed at its end; no process outlives it.
    """

    def __init__(self, timeout: float = 10.0) -> None:
        """`timeout`: seconds a process may take to answer one request, the run's `--call-timeout` (a hanging
        target costs each check that, not a fixed 10 s)."""
        self.timeout = timeout
        self._idle: dict[_Key, list[RawServer]] = {}
        self._sandbox: Path | None = None
        self._ended_waiting: dict[_TargetKey, list[tuple[float, int]]] = {}
        self._spoke_waiting: dict[_TargetKey, list[tuple[float, bytes]]] = {}
        self._frames: deque[tuple[int, int, str | None]] = deque(maxlen=FRAMES_KEPT)
        """(position, process serial, frame) of the last frames written to raw processes; None for one too
        long to keep."""
        self._frames_total = 0
        self._serial = 0
        self._beside: dict[tuple[str, ...], dict[Path, Listing]] = {}
        """Each command's script folders as listed before its first raw process (`beside_script`)."""
        self._pids: list[int] = []
        """The processes the pool started, whose working folders ABS-1 reads (`workfolder.written`)."""
        self._by_command: dict[tuple[str, ...], list[RawServer]] = {}
        """The processes the pool started, by command: ABS-1 reads the paths their stderr names
        (`files_named`)."""
        self._since_ns = time.time_ns()
        """When the pool was made (wall clock): a file changed since was changed during the run."""
        self._donated: dict[tuple[str, ...], list[RawServer]] = {}
        """Processes of a command that other checks are done with, whatever their environment: only a check
        ending a process takes one (`lend(spend=True)`)."""
        self._held: dict[_TargetKey, float] = {}
        """Per target, the longest hold that ran (`hold_idle`): a later one as long learns nothing more."""
        self._windows: dict[_TargetKey, IdleWindow] = {}
        """Per target, the process held idle for `hold_idle` (`reserve_hold`), its window watched in a thread:
        back in the pool once the window closed, what it wrote and when noted (`_absorb`)."""
        self._claims: dict[_TargetKey, float] = {}
        """Per target, a window `reserve_hold` left to the next process a check gives back to the pool written
        to and its stderr read (a fresh run's, after its sequence), instead of a process started for it."""

    def frames_mark(self) -> int:
        """A position in the frames written to raw processes, for `frames_since`."""
        return self._frames_total

    def frames_since(self, mark: int) -> list[str]:
        """The frames written since `mark` to the last process written to: a check's sequence, to replay on
        fresh processes (none when they are no longer all kept)."""
        recent = [(serial, frame) for position, serial, frame in self._frames if position >= mark]
        if not recent or self._frames[0][0] > mark:
            return []
        last = recent[-1][0]
        frames = [frame for serial, frame in recent if serial == last]
        return [frame for frame in frames if frame is not None] if None not in frames else []

    def _wrote(self, serial: int, data: bytes) -> None:
        for line in data.split(b"\n"):
            if line.strip():
                kept = line.decode("utf-8", "replace") if len(line) <= FRAME_KEPT_BYTES else None
                self._frames.append((self._frames_total, serial, kept))
                self._frames_total += 1

    def sandbox_root(self) -> Path:
        """The folder every raw process takes as its HOME and XDG homes (created on first use)."""
        if self._sandbox is None:
            self._sandbox = Path(tempfile.mkdtemp(prefix="sandbox-", dir=workfolder.run_root()))
            for name in SANDBOXED:
                (self._sandbox / name.lower()).mkdir()
        return self._sandbox

    def files_written(self, target: Target | None = None) -> list[str]:
        """What raw processes wrote to disk: files under the sandbox (`$HOME/…`, `$XDG_…/…`) and in each
        process's own working and temp folders (`./…`, `$TMPDIR/…`, each name once however many processes
        wrote it); with `target`, also the files new or changed beside its script since its first raw process
        (`beside_script`)."""
        root = self.sandbox_root()
        sandboxed = sorted(_as_variable(p.relative_to(root)) for p in root.rglob("*")
                           if p.is_file() or p.is_symlink())
        own: set[str] = set()
        more = 0
        for pid in self._pids:
            held = workfolder.written(pid)
            if held is not None:
                own.update(held.files)
                more += held.more
        counted = [f"and {more} more"] if more else []
        beside = self._beside.get(tuple(target.command)) if target is not None else None
        return sandboxed + sorted(own) + counted + (written_since(beside) if beside else [])

    def files_named(self, target: Target) -> Named:
        """The files outside the run's folders that the target's raw processes named on their stderr and
        that changed since the pool was made (`drivers/named_files.py`): a write to a fixed absolute
        folder."""
        said = [bytes(raw.seen) for raw in self._by_command.get(tuple(target.command), [])]
        beside = self._beside.get(tuple(target.command), {})
        own = [str(workfolder.run_root()), *(str(folder) for folder in beside)]
        return changed_at_named(said, self._since_ns, own)

    def folders_replaced(self, target: Target) -> list[Path]:
        """The target's script folders another folder replaced since its first raw process (an install
        replaced under the run): ABS-1 says so beside its verdict, whose files there it compared by size."""
        beside = self._beside.get(tuple(target.command))
        return replaced_since(beside) if beside else []

    def _sandbox_env(self) -> dict[str, str]:
        root = self.sandbox_root()
        return {name: str(root / name.lower()) for name in SANDBOXED}

    def _started(
        self, target: Target, *, discard_stderr: bool, exact_env: Mapping[str, str] | None = None
    ) -> RawServer:
        key = tuple(target.command)
        if key not in self._beside:
            self._beside[key] = listings(script_folders(target.command))
        self._serial += 1
        serial = self._serial
        raw = RawServer(target, sandbox=self._sandbox_env(), discard_stderr=discard_stderr,
                        timeout=self.timeout, on_write=lambda data: self._wrote(serial, data),
                        exact_env=exact_env)
        self._pids.append(raw.proc.pid)
        self._by_command.setdefault(key, []).append(raw)
        return raw

    def start_exact(self, target: Target, env: Mapping[str, str]) -> RawServer:
        """A new process of `target` started with exactly `env` (and the sandbox), for a record about the
        start environment; the caller closes it or, once done with it, `donate`s it. The target's own
        variables come first (its configuration: agiprolabs-ts' DATA_PATH; started without it, that server
        wrote its store into the harness's folder), `env` over them."""
        return self._started(target, discard_stderr=False, exact_env={**target.env, **env})

    def donate(self, raw: RawServer) -> None:
        """Take a process a check is done with, healthy, for a check that ends a process (closed otherwise):
        a process started for one record still serves another's end, instead of a new one started to end."""
        if raw._reusable():
            raw.idle_since = time.monotonic()
            self._donated.setdefault(tuple(raw.target.command), []).append(raw)
        else:
            raw.close()

    def _take_donated(self, command: tuple[str, ...], discards: tuple[bool, ...]) -> RawServer | None:
        """A donated process of `command` with one of these stderr dispositions (still running), if any."""
        donated = self._donated.get(command, [])
        for discard in discards:
            for raw in list(donated):
                if raw.proc.poll() is not None:
                    donated.remove(raw)
                    raw.close()
                elif raw.discards_stderr is discard:
                    donated.remove(raw)
                    return raw
        return None

    @contextmanager
    def lend(
        self,
        target: Target,
        *,
        pristine: bool = False,
        spend: bool = False,
        discard_stderr: bool = False,
        any_stderr: bool = False,
    ) -> Iterator[RawServer]:
        """A process from the pool (started if none fits).

        `pristine`: nothing has been written to it yet. `spend`: the check ends it, so it gets a used one
        when there is one (of its environment, else a donated one), and it never goes back. `any_stderr`: a
        process of the other stderr disposition will do as well (the check reads no stderr). A process goes
        back to the pool only if the check passed and left it healthy: alive, not spent, and with no unread
        stdout that the next check would take for its own.
        """
        command, env = target_key(target)
        keys = [(command, env, discard_stderr)] + ([(command, env, not discard_stderr)] if any_stderr else [])
        self._watch_idle((command, env))
        fitting = [
            (key, r)
            for key in keys
            for r in self._idle.get(key, [])
            if not (pristine and r.sent) and r.proc.poll() is None
        ]
        fitting.sort(key=lambda pair: not pair[1].sent)  # pristine ones are kept for the checks needing them
        donated = None
        if spend and not pristine and not (fitting and fitting[0][1].sent):
            donated = self._take_donated(command, tuple(key[2] for key in keys))
        if donated is not None:
            raw = donated
        elif fitting:
            key, raw = fitting[0]
            self._idle[key].remove(raw)
        elif not pristine and any(not key[2] for key in keys) and (
                held := self._interrupted((command, env))) is not None:
            raw = held
        else:
            raw = self._started(target, discard_stderr=discard_stderr)
        ok = False
        try:
            yield raw
            ok = True
        finally:
            if ok and not spend and raw._reusable():
                raw.idle_since = time.monotonic()
                if not self._claimed((command, env), raw):
                    self._idle.setdefault((command, env, raw.discards_stderr), []).append(raw)
            else:
                raw.close()

    def reserve_hold(self, target: Target, seconds: float | None = None, *, start: bool = True) -> None:
        """Have `hold_idle`'s process idle beside the checks: ABS-10's idle check, after every other one, then
        finds its window closed and waits for nothing (where it started a process at the end and waited its
        whole bound, 6 s of every run). Its window is `seconds` from its last answer, watched in a thread
        (`IdleWindow`): what it wrote and whether it ended within that window only are judged, so a timer
        slower than the window is seen on no run, however long the run (held the whole run, a 30 s keep-alive
        was seen on long runs only). `start`: a process is started and initialized for it now; else the
        first process a check gives back to the pool written to, its stderr read, is held (a fresh run's,
        after its sequence: no process more). `seconds`: `IDLE_HOLD` unless said. Called only when that check
        is to run."""
        seconds = IDLE_HOLD if seconds is None else seconds
        key = target_key(target)
        if key in self._windows or key in self._claims or self._held.get(key, 0.0) >= seconds:
            return
        if not start:
            self._claims[key] = seconds
            return
        raw = self._started(target, discard_stderr=False)
        try:
            raw.initialize()
            raw.stderr_now(wait=raw.banner_wait())
        except (AssertionError, OSError, HarnessError):  # no window then: the hold lends one, as ever
            raw.close()
            return
        raw.idle_since = time.monotonic()
        self._windows[key] = IdleWindow(raw, seconds)

    def _claimed(self, key: _TargetKey, raw: RawServer) -> bool:
        """Whether `raw`, given back to the pool healthy, is held for the window `reserve_hold` left open."""
        seconds = self._claims.get(key)
        if seconds is None or raw.discards_stderr or not raw.sent or raw._initialized is None:
            return False
        del self._claims[key]
        self._windows[key] = IdleWindow(raw, seconds, claimed=True)
        return True

    def _interrupted(self, key: _TargetKey) -> RawServer | None:
        """The process of `key`'s open window when a check gave it back (`_claimed`), for a check that would
        otherwise start a process: its window is given up, left again to the next process given back, so the
        window costs no start. None when there is none (or it closed on an event meanwhile: then noted,
        `_absorb`)."""
        window = self._windows.get(key)
        if window is None or not window.claimed:
            return None
        window.stop()
        if window.spoke or window.ended:
            self._absorb(key)
            idle = self._idle.get((*key, False), [])
            return idle.pop() if idle and idle[-1] is window.held else None
        del self._windows[key]
        self._claims[key] = window.seconds
        return window.held

    def _absorb(self, key: _TargetKey, *, wait: bool = False) -> IdleWindow | None:
        """The window of `key`'s held process once closed (waited for with `wait`): its events noted as a
        pooled process's (`spoke_waiting`, `ended_waiting`, each with when within the window), what it wrote
        after the window with how long it had idled then, and the process back in the pool, idle since the
        window opened. None while it is still open (or there is none)."""
        window = self._windows.get(key)
        if window is None or (not wait and not window.closed):
            return None
        window.join()
        del self._windows[key]
        raw = window.held
        self._spoke_waiting.setdefault(key, []).extend(window.spoke)
        self._ended_waiting.setdefault(key, []).extend(window.ended)
        self._held[key] = max(self._held.get(key, 0.0), window.seconds)
        if not window.ended and raw.proc.poll() is None and (later := raw.stderr_now()):
            self._spoke_waiting[key].append((time.monotonic() - raw.idle_since, later))
        if raw._reusable():
            self._idle.setdefault((*key, False), []).append(raw)
        else:
            raw.close()
        return window

    def _watch_idle(self, key: _TargetKey) -> None:
        """Take out the pooled processes of a target that ended while waiting, and note what those a check had
        written to wrote to stderr while waiting (a late banner among it: the check reading it decides)."""
        self._absorb(key)
        now = time.monotonic()
        for discard in (False, True):
            for raw in list(self._idle.get((*key, discard), [])):
                status = raw.proc.poll()
                said = raw.stderr_now() if raw.sent and status is None else b""
                if said:
                    self._spoke_waiting.setdefault(key, []).append((now - raw.idle_since, said))
                if status is not None:
                    self._ended_waiting.setdefault(key, []).append((now - raw.idle_since, status))
                    self._idle[(*key, discard)].remove(raw)
                    raw.close()

    def hand_over(self, target: Target) -> tuple[subprocess.Popen[bytes], dict[str, JSON], bytes] | None:
        """A used, initialized, idle process of `target` whose stderr is read, out of the pool, with its
        initialize answer and the stderr read from its start: for a driver that takes it over (the session's
        spare, `WireDriver.adopt`) instead of starting a process of its own, and may give it back for a check
        that ends a process (`take_back`). None when the pool has no such process."""
        command, env = target_key(target)
        self._watch_idle((command, env))
        idle = self._idle.get((command, env, False), [])
        for raw in list(idle):
            initialized = raw._initialized
            if raw.sent and initialized is not None and raw._reusable():
                idle.remove(raw)
                return raw.release(), initialized, bytes(raw.seen)
        held = self._interrupted((command, env))
        if held is not None and held._initialized is not None and held._reusable():
            return held.release(), held._initialized, bytes(held.seen)
        if held is not None:
            held.close()
        return None

    def take_back(
        self, target: Target, proc: subprocess.Popen[bytes], *, seen: bytes,
        initialized: dict[str, JSON] | None,
    ) -> None:
        """A running process of `target` another driver is done with (the session's spare, whose checks all
        ran: `WireDriver.release`), donated for a check that ends a process (`donate`) instead of one being
        started to be ended."""
        self._serial += 1
        serial = self._serial
        raw = RawServer(target, sandbox={}, timeout=self.timeout,
                        on_write=lambda data: self._wrote(serial, data), proc=proc)
        raw.sent = True
        raw.seen += seen[:SEEN_BYTES]
        raw._initialized = initialized
        self.donate(raw)

    def ended_waiting(self, target: Target) -> list[tuple[float, int]]:
        """The pooled processes of `target` found ended while they waited for a check (how long they had
        waited when found, their exit status): nothing ends a pooled process but itself."""
        key = target_key(target)
        self._watch_idle(key)
        return list(self._ended_waiting.get(key, []))

    def clock_lines(self, target: Target) -> frozenset[bytes]:
        """The lines pooled processes of `target` wrote while they waited for a check (`spoke_waiting`), each
        read up to its digits (`clock_key`): output on a clock, not a call's, which a check reading what a
        process wrote after its end or a signal leaves out (`without_clock_lines`)."""
        return frozenset(key for _, said in self.spoke_waiting(target) for line in said.split(b"\n")
                         if (key := clock_key(line)))

    def hold_idle(self, target: Target, seconds: float) -> None:
        """Wait until a pooled process of `target` a check wrote to has idled `seconds` since, or one wrote or
        ended while waiting, whichever comes first: ABS-10's idle check then sees every timer that fast on
        every run, as the gate's idle witness does, whatever the run's own waits were, and the checks after it
        know the clock lines (`clock_lines`). When none is pooled, one is lent, initialized and held here
        directly, whether or not the pool keeps it after: a server writing a notification just after the
        handshake (initialized-sends-list-changed) has no process the pool takes back, yet its timers are seen
        alike. That process is the one `reserve_hold` held when there is one: its window ran beside the
        checks, not after them, and only what it did within its window is noted as written or ended within
        it. Once a hold as long ran, a later one (the end checks', learning clock lines) waits for nothing: it
        would hold another process just as long."""
        key = target_key(target)
        self._watch_idle(key)
        if self._held.get(key, 0.0) >= seconds:
            # A hold as long already ran (ABS-10's, before the end checks learn clock lines here): its
            # process's timers are known, and the pooled processes' events since were just noted.
            return
        try:
            self._hold_once(target, key, seconds)
        finally:
            self._held[key] = max(self._held.get(key, 0.0), seconds)

    def _hold_once(self, target: Target, key: _TargetKey, seconds: float) -> None:
        if (open_window := self._windows.get(key)) is not None:
            open_window.seconds = min(open_window.seconds, seconds)  # a shorter hold judges a shorter window
        window = self._absorb(key, wait=True)
        if window is not None and (window.seconds >= seconds or window.spoke or window.ended):
            # Held beside the checks (`reserve_hold`): its window closed, or closes now, at its own length.
            return
        self._claims.pop(key, None)  # the process lent below is the hold's own, not one to hold again
        if not any(raw.sent for raw in self._idle.get((*key, False), [])):
            with self.lend(target) as raw:
                raw.initialize()
                raw.stderr_now(wait=raw.banner_wait())
                raw.idle_since = time.monotonic()
                self._hold(key, [raw], seconds)
            return
        self._hold(key, [], seconds)

    def _hold(self, key: _TargetKey, lent: list[RawServer], seconds: float) -> None:
        """Wait as `hold_idle` says over the pooled processes of `key` and those in `lent` (held out of the
        pool: what they write or their end is noted as a pooled one's would be, `_watch_idle`). Only a process
        whose stderr is read counts as idled: one writing to /dev/null idles silently however it beats (the
        clock lines the end checks learn here were none under load, a discarding process idle long enough)."""
        while True:
            self._watch_idle(key)
            now = time.monotonic()
            for raw in lent:
                status = raw.proc.poll()
                said = raw.stderr_now() if status is None else b""
                if said:
                    self._spoke_waiting.setdefault(key, []).append((now - raw.idle_since, said))
                if status is not None:
                    self._ended_waiting.setdefault(key, []).append((now - raw.idle_since, status))
            if self._spoke_waiting.get(key) or self._ended_waiting.get(key):
                return
            longest = max((now - raw.idle_since for raw in (*self._idle.get((*key, False), []), *lent)
                           if raw.sent), default=0.0)
            if longest >= seconds:
                return
            time.sleep(min(_HOLD_POLL, seconds - longest))

    def spoke_waiting(self, target: Target) -> list[tuple[float, bytes]]:
        """The pooled processes of `target` that wrote to stderr while they waited for a check, after a check
        had written to them (how long they had waited when found, what they wrote)."""
        key = target_key(target)
        self._watch_idle(key)
        return list(self._spoke_waiting.get(key, []))

    def prestart(self, target: Target, *, pristine: int, discarding: int = 0) -> None:
        """Start processes into the pool until it holds this many pristine ones of each kind, all at once:
        their start-up (for an interpreted server, most of its cost) then runs in parallel, not in turn."""
        command, env = target_key(target)
        for discard, wanted in ((False, pristine), (True, discarding)):
            idle = self._idle.setdefault((command, env, discard), [])
            ready = sum(1 for r in idle if not r.sent and r.proc.poll() is None)
            idle.extend(self._started(target, discard_stderr=discard) for _ in range(max(0, wanted - ready)))

    def close(self) -> None:
        """End every pooled process at once (at the end of a session), and remove the sandbox."""
        pooled = [raw for idle in (*self._idle.values(), *self._donated.values()) for raw in idle]
        windows = list(self._windows.values())
        pooled += [window.held for window in windows]
        self._idle.clear()
        self._donated.clear()
        self._windows.clear()
        self._claims.clear()
        closing = [threading.Thread(target=raw.close) for raw in pooled]
        for thread in closing:
            thread.start()
        for thread in closing:
            thread.join()
        for window in windows:
            window.join()
        if self._sandbox is not None:
            workfolder.remove(self._sandbox)
            self._sandbox = None


class IdleWindow:
    """A process held idle for `seconds` from its last answer (`idle_since`), watched in a thread of its own:
    its first stderr write or its end within that window, each with how long it had idled (the window is the
    same on every run, however long the run lasts). The thread reads its stderr until then; nothing else
    touches the process before `join`."""

    def __init__(self, held: RawServer, seconds: float, *, claimed: bool = False) -> None:
        """`claimed`: the process is one a check gave back (`RawPool._claimed`), which a check needing one
        may take before the window closes; one started for the window is never taken."""
        self.held, self.seconds, self.claimed = held, seconds, claimed
        self.opened = held.idle_since
        self.spoke: list[tuple[float, bytes]] = []
        self.ended: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="idle-window", daemon=True)
        self._thread.start()

    @property
    def closed(self) -> bool:
        return not self._thread.is_alive()

    def join(self) -> None:
        self._thread.join()

    def stop(self) -> None:
        """End the watch now (a check takes the process): what it saw so far stays."""
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        raw = self.held
        fd = raw.proc.stderr.fileno() if raw.proc.stderr is not None and not raw.discards_stderr else None
        while (now := time.monotonic()) < self.opened + self.seconds and not self._stop.is_set():
            status = raw.proc.poll()
            if status is not None:
                self.ended.append((now - self.opened, status))
                return
            said = raw.stderr_now() if fd is not None else b""
            if said:
                self.spoke.append((now - self.opened, said))
                return
            left = min(_HOLD_POLL, self.opened + self.seconds - time.monotonic())
            if left <= 0:
                return
            if fd is None or select.select([fd], [], [], left)[0]:
                self._stop.wait(left if fd is None else 0.01)  # at its end the pipe reads empty until reaped


class RawServer:
    """One spawned server with plain pipes (stderr optionally discarded to /dev/null); always ended on
    exit."""

    def __init__(
        self,
        target: Target,
        *,
        sandbox: Mapping[str, str],
        discard_stderr: bool = False,
        timeout: float = 10.0,
        on_write: Callable[[bytes], None] | None = None,
        exact_env: Mapping[str, str] | None = None,
        proc: subprocess.Popen[bytes] | None = None,
    ) -> None:
        """`exact_env`: the whole environment the process starts with (plus the sandbox), instead of ours with
        the target's variables on top. `proc`: a process already running (started and counted by another
        driver: `RawPool.take_back`), driven instead of starting one."""
        self.target = target
        self._renamer = Renamer(target.renames) if target.renames else None
        self._on_write = on_write
        self.timeout = timeout
        self._next_id = 1
        self._buffer = b""
        self.sent = False
        """Whether anything was written to its stdin: a pristine process has its initial state."""
        self.spent = False
        """Whether a check closed a pipe or signalled it: never lent again."""
        self.released = False
        """Whether another driver took its process over (`release`): never read or ended here again."""
        self.seen = bytearray()
        """The stderr bytes read so far, from the start of the process (its first `SEEN_BYTES`)."""
        self._initialized: dict[str, JSON] | None = None
        self.refused_offer: RefusedOffer | None = None
        """The offer `initialize` saw refused before another was accepted (None: the first was)."""
        self._read_ahead = bytearray()
        """stderr read while waiting for a late box (`_settle`): the next `stderr_now` returns it first."""
        self._boxes_owed = 0
        """Boxes the calls answered since the last `stderr_now` drew: what the read-ahead should hold."""
        self._settle_misses = 0
        self._late_seen = False
        self._answered_at = 0.0
        """When `request` last read an answer (monotonic; 0: never): stderr first arriving soon after it,
        with nothing pending when it came, reaches the pipe late (a relay)."""
        self.box_waits = 0
        """Calls waited for until their box was complete or stderr stayed quiet (as
        `WireDriver.stderr_box_waits`)."""
        self._tool_calls: set[str | int] = set()
        """Ids of the tools/call requests written whose answer is unread (`_TOOL_CALLS_KEPT` at most)."""
        self.boxes_answered = 0
        """Boxes the answers read so far say were drawn (`boxes_due`), however a check read them."""
        self.boxes_read = 0
        """Boxes closed in the stderr read so far (`boxes_closed`): fewer than `boxes_answered` while the
        boxes of calls already answered are still on their way (a relay's)."""
        self._awaited = 0
        """`boxes_answered` when a wait for the boxes last ended: a box that did not come (none drawn, one in
        ASCII) is waited for once."""
        self._closing_tail = b""
        """The last bytes of the stderr read, so a corner cut between two reads is counted once."""
        self.line_waits = 0
        """Tool calls owing no box waited for until their stderr stayed quiet (as
        `WireDriver.stderr_line_waits`)."""
        self.discards_stderr = discard_stderr
        self._startup_due = proc is None and not discard_stderr
        """Whether its start-up stderr (the banner) is still to be read whole after the first answer
        (`_settle_startup`): a process it started, whose stderr it reads."""
        self._startup_owed_until = 0.0
        """While its start-up wait ended with nothing on stderr: until when (monotonic) its first stderr bytes
        may still be its banner, late (`_late_startup`, as the wire driver's); 0.0: not owed."""
        self._first_answer_at = 0.0
        self.pace = 0.0
        """The longest round trip of a request after the first read by `request` on this process (seconds;
        0.0: none yet): how long this server takes, in this run, to do what it is asked
        (`drivers/ending.py`)."""
        self.late_banners = 0
        """Start-ups whose banner was found leading a call's stderr read ahead and taken out of it."""
        self.idle_since = time.monotonic()
        """When it last waited for a check: its start, or the end of the check that last used it."""
        if proc is not None:
            self.proc = proc
        elif exact_env is not None:
            self.proc = process.spawn(target.command, env={**exact_env, **sandbox}, exact_env=True)
        else:
            self.proc = process.spawn(
                target.command, env={**target.env, **sandbox}, discard_stderr=discard_stderr
            )

    def __enter__(self) -> RawServer:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _reusable(self) -> bool:
        if self.spent or self.proc.poll() is not None or self._buffer:
            return False
        assert self.proc.stdout is not None, (
            "the harness could not read the server's stdout: its pipe is not open")
        ready, _, _ = select.select([self.proc.stdout.fileno()], [], [], 0)
        if ready:
            return False
        if not self.discards_stderr:
            self.stderr_now()
        return True

    def release(self) -> subprocess.Popen[bytes]:
        """Its process, for another driver to take over: from now on this one neither reads nor ends it."""
        self.spent = self.released = True
        return self.proc

    def close(self) -> None:
        if self.released:
            return
        process.terminate(self.proc)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()

    # -- pipes -------------------------------------------------------------------------------------

    def write(self, frame: bytes) -> None:
        assert self.proc.stdin is not None, (
            "the harness could not write to the server's stdin: its pipe is not open")
        self.sent = True
        self._answered_at = 0.0  # what this frame makes the server write is not the last answer's
        if self._renamer is not None:
            frame = self._renamer.frame(frame)
        if self._on_write is not None:
            self._on_write(frame)
        self._note_tool_calls(frame)
        view = memoryview(frame)
        while view:
            written = self.proc.stdin.write(view)
            view = view[written or 0 :]

    def send(self, message: dict[str, JSON]) -> None:
        self.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")

    def read_line(self, timeout: float | None = None) -> bytes | None:
        """The next stdout line, or None when nothing arrives in time (or stdout ended); a line growing past
        the frame limit (`--max-frame`) is `FrameTooLarge`, as on the wire driver."""
        assert self.proc.stdout is not None, (
            "the harness could not read the server's stdout: its pipe is not open")
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
            if b"\n" not in chunk and len(self._buffer) > max_frame():
                head, self._buffer = self._buffer[:200], b""
                raise FrameTooLarge(max_frame(), line=head)
        line, self._buffer = self._buffer.split(b"\n", 1)
        if self._tool_calls:
            self._note_answer(line)
        return line

    def _note_tool_calls(self, frame: bytes) -> None:
        """Keep the ids of the tools/call requests in `frame`, whose answers say whether a box is owed."""
        for line in frame.split(b"\n"):
            if b"tools/call" not in line or len(self._tool_calls) >= _TOOL_CALLS_KEPT:
                continue
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("method") == "tools/call":
                request_id = message.get("id")
                if isinstance(request_id, (str, int)) and not isinstance(request_id, bool):
                    self._tool_calls.add(request_id)

    def _note_answer(self, line: bytes) -> None:
        """Count the boxes a tools/call's answer on `line` says were drawn (`boxes_answered`)."""
        try:
            message = json.loads(line)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        request_id = message.get("id")
        if isinstance(request_id, (str, int)) and not isinstance(request_id, bool) and (
                request_id in self._tool_calls):
            self._tool_calls.discard(request_id)
            self.boxes_answered += boxes_due("tools/call", [message])

    def request(self, method: str, params: JSON) -> dict[str, JSON]:
        request_id = self._next_id
        self._next_id += 1
        sent = time.monotonic()
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        line = self.read_line()
        assert line is not None, f"no answer to {method} within {self.timeout}s"
        self.pace = pace_after(self.pace, request_id, time.monotonic() - sent)
        answer = response_line(line, f"the response to {method} (id {request_id}) was due")
        assert isinstance(answer, dict) and answer.get("id") == request_id, (
            f"the response to {method} (id {request_id}) came as {brief(answer)}, where the original answers "
            f"with that request's id")
        if self._startup_due:
            self._settle_startup()
        in_pipe = self._late_startup(boxes_due(method, [answer])) if self._startup_owed_until else True
        if due := boxes_due(method, [answer]):
            self._settle(due)
        elif method == "tools/call":
            self._settle_unboxed()
        if self._startup_owed_until:  # its first bytes came while settling
            self._late_startup(due, in_pipe=in_pipe)
        self._answered_at = time.monotonic()
        return answer

    def settle_boxes(self, method: str, answer: dict[str, JSON]) -> None:
        """After an answer read by the caller: wait, as `request` does, for the boxes it is due on stderr."""
        if due := boxes_due(method, [answer]):
            self._settle(due)

    def _stderr_reader(self, fd: int) -> Callable[[float], bytes | None]:
        """What stderr (`fd`) holds within a wait, kept as read ahead: the settle loops' `read_within`."""

        def read_within(wait: float) -> bytes | None:
            ready, _, _ = select.select([fd], [], [], wait)
            chunk = os.read(fd, 1 << 16) if ready else b""
            if not chunk:
                return None
            self._read_ahead += chunk
            self._saw(chunk)
            return chunk

        return read_within

    def _held(self) -> bytes:
        """The stderr read ahead so far: what the settle loops judge complete or open."""
        return bytes(self._read_ahead)

    def _settle(self, due: int) -> None:
        """Read ahead until the box of the call just answered is complete on stderr, as the wire driver waits
        for it (`drivers.wire.settle`, the same quiet period and limits): a relay's box arrives after the
        answer, and would otherwise be read as written between calls."""
        if self.discards_stderr or self.proc.stderr is None:
            return
        self._awaited = self.boxes_answered
        self._boxes_owed += due
        ahead = bytes(self._read_ahead)
        boxless = self._settle_misses >= SETTLE_MISSES and not self._late_seen
        if boxless and not line_open(ahead):
            return
        read_within = self._stderr_reader(self.proc.stderr.fileno())
        command, lateness = self.target.command, self.target.lateness
        lag = min(SETTLE_LIMIT, max(SETTLE_QUIET, 2 * lateness.lag(command)))
        quiet, pending = (0.0, line_open) if boxless else (lag, box_open)
        started = time.monotonic()
        if settle(read_within, self._held, self._boxes_owed, quiet, SETTLE_LIMIT, pending):
            self._late_seen = True
            lateness.note_lag(command, time.monotonic() - started)
        elif not boxless:
            self._settle_misses += 1
        if not boxless:
            self.box_waits += 1

    def _settle_answered(self) -> None:
        """Read ahead, as `_settle` waits, the boxes of calls already answered that have not come yet
        (`boxes_answered` over `boxes_read`), however the check read their answers: through a relay a box
        comes after its answer, and one still on its way as its process went back to the pool was read as
        written while it waited for its next call (ABS-10 on a relayed fork answering calls 20 ms late)."""
        if self.spent or self.proc.stderr is None or max(self.boxes_read,
                                                          self._awaited) >= self.boxes_answered:
            return
        read_within = self._stderr_reader(self.proc.stderr.fileno())
        while len(self._read_ahead) < SETTLE_BYTES and read_within(0.0):
            pass  # written before the answers: in the pipe already
        owed = self.boxes_answered - self.boxes_read
        self._awaited = self.boxes_answered
        if owed <= 0 or (self._settle_misses >= SETTLE_MISSES and not self._late_seen):
            return
        command, lateness = self.target.command, self.target.lateness
        quiet = min(SETTLE_LIMIT, max(SETTLE_QUIET, 2 * lateness.lag(command)))
        started = time.monotonic()
        if settle(read_within, self._held, boxes_closed(self._held()) + owed, quiet, SETTLE_LIMIT, box_open):
            self._late_seen = True
            lateness.note_lag(command, time.monotonic() - started)
        else:
            self._settle_misses += 1
        self.box_waits += 1

    def _settle_startup(self) -> None:
        """After its first answer, read ahead its start-up stderr (the banner) until its last line is ended,
        waiting for its first bytes when none came yet, as the wire driver does (`settle_startup`, one
        `SETTLE_LIMIT` at most): a banner a relay forwards after initialize is answered is the start-up's,
        not what the next check reads as written beside its calls."""
        self._startup_due = False
        if self.proc.stderr is None:
            return
        command, lateness = self.target.command, self.target.lateness
        read_within = self._stderr_reader(self.proc.stderr.fileno())
        while len(self.seen) < SETTLE_BYTES and read_within(0.0):
            pass  # written before the answer: in the pipe already
        silent = not self.seen
        first = startup_first(lateness, command)
        if silent and not first:
            return
        started = time.monotonic()
        arrived = settle_startup(read_within, lambda: bytes(self.seen[-SETTLE_BYTES:]), first, SETTLE_LIMIT)
        if arrived:
            lateness.note_startup(command, arrived=True)
            lateness.note_lag(command, time.monotonic() - started)
        elif silent:
            lateness.note_startup(command, arrived=False)
            self._startup_owed_until, self._first_answer_at = started + STARTUP_LATE, started
        if banner := learnable(bytes(self.seen)):
            lateness.note_banner(command, banner)

    def _late_startup(self, due: int, in_pipe: bool | None = None) -> bool:
        """After an answer on a process whose start-up wait ended with nothing, within `STARTUP_LATE` of its
        first answer (as `WireDriver._late_startup`): its first stderr bytes may be its banner, late through
        a relay, with the call's own behind it. A call owing a box with nothing in the pipe waits for them
        when the run saw a process of its command write a banner (`Lateness.banner`); the banner they begin
        with (`startup_part`) is kept in `seen` but taken out of what was read ahead
        for the checks, and its lag learned. `in_pipe`: given after the call's settling (no wait then),
        whether stderr was pending at its answer. Returns whether it was (found now)."""
        if time.monotonic() > self._startup_owed_until or self.discards_stderr or self.proc.stderr is None:
            self._startup_owed_until = 0.0
            return True
        command, lateness = self.target.command, self.target.lateness
        if self.seen and not self._read_ahead:  # its first bytes were read by a check: no call's
            self._startup_owed_until = 0.0
            return True
        banner = lateness.banner(command)
        if in_pipe is None:
            read_within = self._stderr_reader(self.proc.stderr.fileno())
            while len(self._read_ahead) < SETTLE_BYTES and read_within(0.0):
                pass  # in the pipe already
            in_pipe = bool(self._read_ahead)
            if banner and not in_pipe and due:
                left = self._startup_owed_until - time.monotonic()
                settle_startup(read_within, self._held, left, left)
        if not self._read_ahead:
            return in_pipe  # nothing yet: still owed until `STARTUP_LATE` has passed
        self._startup_owed_until = 0.0
        part = startup_part(bytes(self._read_ahead), banner, boxed=bool(due) and not in_pipe)
        if not part:
            return in_pipe  # its first stderr is a call's own: it writes no banner (or none is known)
        del self._read_ahead[:len(part)]
        self.late_banners += 1
        lateness.note_startup(command, arrived=True)
        lateness.note_lag(command, time.monotonic() - self._first_answer_at)
        lateness.note_banner(command, part)
        return in_pipe

    def _settle_unboxed(self) -> None:
        """After a tool call's answer owing no box, once this command's stderr is known to arrive late
        (`Lateness.known`), or while that is learned (`Lateness.probing`): read what is pending, then read
        ahead until a quiet period passes with nothing arriving (`settle_lines`, as the wire driver waits),
        so a refusal's line a relay forwards late is that call's, not written while the process waited."""
        command, lateness = self.target.command, self.target.lateness
        if not lateness.waits(command) or self.discards_stderr or self.proc.stderr is None:
            return
        read_within = self._stderr_reader(self.proc.stderr.fileno())
        while len(self._read_ahead) < SETTLE_BYTES and read_within(0.0):
            pass  # written before the answer: in the pipe already, not late
        held, started = len(self._read_ahead), time.monotonic()
        last = settle_lines(read_within, self._held, SETTLE_QUIET, SETTLE_LIMIT)
        self.line_waits += 1
        lateness.note_wait(command, arrived=len(self._read_ahead) > held,
                           streaming=streamed(time.monotonic() - started, last, SETTLE_QUIET))

    def initialized_as(self, answer: dict[str, JSON]) -> None:
        """The handshake was done by the caller's own frames: `initialize` does not send it again."""
        self._initialized = answer

    def initialize(self) -> dict[str, JSON]:
        """The handshake, once per process: a pooled process lent again is already initialized. An offer
        answered with a JSON-RPC error is followed by the other handshake revisions, newest first, on the same
        process, as the wire and SDK drivers do (`offered_next`): a server refusing the original's 2024-11-05
        is met where it speaks, its refusal SPEC-1's finding (said by the meetings), not a raw check's."""
        if self._initialized is not None:
            return self._initialized
        answer = self.request(
            "initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
        )
        error = answer.get("error")
        if "result" not in answer and isinstance(error, dict):
            for offer in offered_next(PROTOCOL_VERSION):
                again = self.request(
                    "initialize", {"protocolVersion": offer, "capabilities": {}, "clientInfo": CLIENT_INFO})
                if isinstance(again.get("result"), dict):
                    self.refused_offer = RefusedOffer(PROTOCOL_VERSION, error, offer)
                    answer = again
                    break
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self._initialized = answer
        return answer

    def stderr_now(self, wait: float = 0.0) -> bytes:
        """What stderr holds after waiting up to `wait` seconds for the first bytes (none if discarded): then
        read while more arrives within `STDERR_QUIET` or the last line is unfinished (a relay forwards in
        pieces), for `STDERR_READ_LIMIT` seconds and `STDERR_READ_BYTES` at most, so a heartbeat or a flood
        costs a bounded read, never a hang."""
        if self.discards_stderr:
            return b""
        assert self.proc.stderr is not None, (
            "the harness could not read the server's stderr: its pipe is not open")
        self._settle_answered()
        fd = self.proc.stderr.fileno()
        data, self._read_ahead, self._boxes_owed = self._read_ahead, bytearray(), 0
        first_by = time.monotonic() + wait
        # Nothing read or pending soon after an answer: what arrives now reached the pipe late.
        answered = (self._answered_at if not data and not self.spent and not select.select([fd], [], [], 0)[0]
                    else 0.0)
        read_by = time.monotonic() + STDERR_READ_LIMIT if data else math.inf
        while len(data) < STDERR_READ_BYTES:
            now = time.monotonic()
            if not data:
                timeout = max(0.0, first_by - now)
            else:
                left = read_by - now
                if left <= 0:
                    break
                timeout = min(STDERR_QUIET, left) if data.endswith(b"\n") else left
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                if data or now >= first_by:
                    break
                continue
            chunk = os.read(fd, min(1 << 16, STDERR_READ_BYTES - len(data)))
            if not chunk:
                break
            if not data:
                read_by = time.monotonic() + STDERR_READ_LIMIT
                if answered and time.monotonic() - answered <= SETTLE_LIMIT:
                    self.target.lateness.note_late(self.target.command)
            data += chunk
            self._saw(chunk)
        if self._startup_owed_until and wait and data and len(self.seen) == len(data):
            self._startup_owed_until = 0.0  # the start-up's stderr, waited for by a check (the banner's)
            command, lateness = self.target.command, self.target.lateness
            lateness.note_startup(command, arrived=True)
            lateness.note_lag(command, time.monotonic() - self._first_answer_at)
            if banner := learnable(bytes(data)):
                lateness.note_banner(command, banner)
        return bytes(data)

    def _saw(self, chunk: bytes) -> None:
        joined = self._closing_tail + chunk
        self.boxes_read += boxes_closed(joined) - boxes_closed(self._closing_tail)
        self._closing_tail = joined[-2:]
        room = SEEN_BYTES - len(self.seen)
        if room > 0:
            self.seen += chunk[:room]

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None, (
            "the harness could not close the server's stdin: its pipe is not open")
        self.spent = True
        self.proc.stdin.close()

    def close_stdout(self) -> None:
        assert self.proc.stdout is not None, (
            "the harness could not close the server's stdout: its pipe is not open")
        self.spent = True
        self.proc.stdout.close()

    def signal(self, sig: signal.Signals) -> None:
        self.spent = True
        self.proc.send_signal(sig)

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def banner_wait(self) -> float:
        """Seconds a check waits for this process's first stderr bytes (its banner) before reading what it
        holds: none once some were read, or once the run learned its command writes nothing at start-up
        (`Lateness.waits_for_startup`); else `end_bound` of its pace, ended as the first bytes arrive."""
        lateness = self.target.lateness
        if self.seen or self.discards_stderr or not lateness.waits_for_startup(self.target.command):
            return 0.0
        return end_bound(self.timeout, self.pace)

    def wait_for_end(
        self, what: str, nudge: Callable[[], None] | None = None, *, end: str = STDIN_END,
        since: float | None = None, learn_as: Sequence[str] | None = None,
    ) -> tuple[int | None, float]:
        """The exit status once the process ended (None: still running) and the seconds it was given: it
        ends the wait as it exits, within `end_bound` of its own pace (`drivers/ending.py`), or `known_bound`
        once a process of its command outlived a whole one for the same `end` in the run (`Outlived`, which
        this wait teaches; `learn_as`: the command to learn it for, when this process was launched with
        arguments of a check's own). `since`: when the end was asked for (monotonic; now when None), so
        processes ended together are waited for together. `nudge` is called every `NUDGE` seconds meanwhile
        (a request written, so a broken stdout shows on the next write). Still running at a bound its pace
        cut short is `TooSlow`: slow, said as such, not a departure."""
        command = tuple(learn_as if learn_as is not None else self.target.command)

        def nudged(bound: float) -> int | None:
            deadline = (time.monotonic() if since is None else since) + bound
            status: int | None = self.proc.poll()
            while status is None and (left := deadline - time.monotonic()) > 0:
                if nudge is not None:
                    nudge()
                status = self.wait(left if nudge is None else min(NUDGE, left))
            return status

        return paced_end(self.target.lateness.ends, command, end, self.timeout, self.pace, nudged, what)

    def outlived(self, end: str = STDIN_END, learn_as: Sequence[str] | None = None) -> float | None:
        """The whole bound a process of this command was still running after `end` so far in the run (None:
        none was): asked before `wait_for_end`, what its shorter wait stands on (`ending.still_running`)."""
        return self.target.lateness.ends.outlived(learn_as if learn_as is not None else self.target.command,
                                                  end)
