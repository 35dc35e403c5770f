"""The server's own share of a run: the run's answered requests, replayed in order by a bare client.

A fixed small call repeated understates what a run costs the server (a shared process's state grows over
thousands of calls, answers get larger, error paths and large thoughts cost more), so the floor is measured
on the run's own calls, read back from its transcript (`transcripts/<target>.jsonl` in the run's folder).

The transcript is read as untrusted data: bounded in size, a line that is not a JSON object with a string
`kind` and a string `data` is skipped and counted, a frame that is not a JSON-RPC request is never replayed.
A request is answered when a later received frame (a JSON object without `method`) carries its id; a request
sent again with the same id before that answer leaves the earlier one unanswered.

Each frame's line names the process it went to or came from (`pid`): the frames of the shared process and
of spare or fresh ones interleave, and a request is answered by a later frame of the same process with its
id. A transcript written before lines named their process is still read: there, its notes say when a
process started (`started pid N`, `shared process: pid N`) and ended (`closed pid N`), and each driver
numbers its requests 1, 2, 3, ..., so a request goes to the live process whose previous request had the id
before its own. Where that is not one process (two drivers at the
same count, hand-made ids, a handed-over process's first request), the request goes to the process of the
request before it if that one could have sent it, else to the latest started that could, and is counted
as guessed (and, after a choice between several processes whose counts fit, so is every request until one
of them closes). The replay then drives one fresh process per process of the run, all started and
initialized before the clock starts.
The run's own `initialize` requests are replayed too (a round trip per process that the cold start also
counts: a millisecond or two).
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from benchmarks.bench_drivers import BareLoop, ServerDidNotStart
from conformance.targets.specs import Target

MAX_TRANSCRIPT_BYTES: Final = 512 << 20
"""The most of a transcript read (the harness writes at most 128 MiB); the rest is not replayed."""
MAX_LINE_BYTES: Final = 64 << 20
"""A longer line is skipped (and counted), never held whole."""
MAX_PID: Final = 2**31 - 1
"""A line's `pid` above this is no process id: the line is replayed as if it named none."""
ANSWER_TIMEOUT: Final = 30.0
"""Seconds a replayed request may wait for its answer before the replay stops (a verdict, not a hang)."""

_IdKey = tuple[str, int | str]
_STARTED: Final = re.compile(r"(started pid|shared process: pid) (\d{1,10})\b")
_CLOSED: Final = re.compile(r"closed pid (\d{1,10})\b")
UNKNOWN: Final = "before any process note"


@dataclass(frozen=True)
class Frame:
    """One request to replay: its bytes as sent (newline included), its id, and the process it went to."""

    data: bytes
    id: int | str
    process: str = UNKNOWN
    guessed: bool = False
    """True when the request's process was not told by its id (see the module's doc)."""


@dataclass(frozen=True)
class Extracted:
    """What a transcript holds for the replay, and what was left out of it."""

    frames: list[Frame]
    unanswered: int
    skipped_lines: int
    truncated: bool

    @property
    def processes(self) -> list[str]:
        return list(dict.fromkeys(frame.process for frame in self.frames))

    @property
    def guessed(self) -> int:
        return sum(frame.guessed for frame in self.frames)


@dataclass(frozen=True)
class Replay:
    """The replay's figures: `seconds` sums each request's write-to-answer time."""

    frames: int
    seconds: float
    completed: bool
    reason: str
    processes: int = 1

    @property
    def calls_per_s(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0


def _id_key(value: object) -> _IdKey | None:
    """An id as a key that keeps 1 and "1" apart; None for what is no usable request id (null, true, 1.5)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, str):
        return ("str", value)
    return None


def _lines(path: Path, limit: int, line_limit: int) -> Iterator[bytes | None]:
    """The file's lines up to `limit` bytes; None for a line longer than `line_limit` (skipped whole)."""
    with path.open("rb") as handle:
        read = 0
        while read < limit:
            line = handle.readline(min(line_limit, limit - read) + 1)
            if not line:
                return
            read += len(line)
            if len(line) > line_limit and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):
                    line = handle.readline(1 << 20)
                    read += len(line)
                yield None
                continue
            yield line


def _event(line: bytes | None) -> tuple[str, str, int | None] | None:
    """(kind, data, pid) of one transcript line, or None for anything that is not such an event; the pid is
    None when the line names none (a transcript written before events carried one) or no plausible one."""
    if line is None:
        return None
    try:
        event = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(event, dict):
        return None
    kind, data, pid = event.get("kind"), event.get("data"), event.get("pid")
    if not isinstance(kind, str) or not isinstance(data, str):
        return None
    if isinstance(pid, bool) or not isinstance(pid, int) or not 0 < pid <= MAX_PID:
        pid = None
    return kind, data, pid


def _message(data: str) -> dict[str, object] | None:
    try:
        message = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, dict) else None


class _Processes:
    """The run's live processes, as its notes tell them, and the request id each would send next: the one
    after its last request told by its count, and the one after its last guessed request (a hand-made id may
    have moved the driver's count, or not).

    A request is told when exactly one live process's count continues with its id, no handed-over process is
    still unused (its count is unknown) and no live process is crossed: a choice between several possible
    processes crosses them all (one of their counts may now be wrong) until they close.
    """

    def __init__(self) -> None:
        self.told: dict[str, int | None] = {}
        self.guessed: dict[str, int | None] = {}
        self.unused_handover: set[str] = set()
        self.crossed: set[str] = set()
        self.previous = UNKNOWN

    def note(self, text: str) -> None:
        started, closed = _STARTED.match(text), _CLOSED.match(text)
        if started is not None:
            pid = started.group(2)
            handed_over = started.group(1) != "started pid"
            self.told.pop(pid, None)
            self.told[pid] = None if handed_over else 1
            self.guessed[pid] = None
            self.crossed.discard(pid)
            if handed_over:
                self.unused_handover.add(pid)
        elif closed is not None:
            pid = closed.group(1)
            self.told.pop(pid, None)
            self.unused_handover.discard(pid)
            self.crossed.discard(pid)

    def tell(self, pid: str, request_id: int | str) -> str:
        """A request whose line names its process: the counts of the others are left as they were."""
        if isinstance(request_id, int) and pid in self.told:
            self.told[pid], self.guessed[pid] = request_id + 1, None
        self.unused_handover.discard(pid)
        self.previous = pid
        return pid

    def assign(self, request_id: int | str) -> tuple[str, bool]:
        """The process a request with `request_id` went to, and whether that was guessed."""
        counted = [pid for pid, next_id in self.told.items() if next_id == request_id]
        possible = list(dict.fromkeys(counted + [pid for pid in self.told if pid in self.unused_handover]))
        if len(possible) > 1:
            self.crossed.update(possible)
        guessed = len(possible) != 1 or not counted or bool(self.crossed)
        pool = possible or [pid for pid, next_id in self.guessed.items() if next_id == request_id
                            and pid in self.told] or list(self.told)
        chosen = self.previous if self.previous in pool else (pool[-1] if pool else UNKNOWN)
        if isinstance(request_id, int) and chosen in self.told:
            if chosen in counted or (chosen in self.unused_handover and len(possible) == 1):
                self.told[chosen], self.guessed[chosen] = request_id + 1, None
            else:
                self.guessed[chosen] = request_id + 1
        self.unused_handover.discard(chosen)
        self.previous = chosen
        return chosen, guessed


def extract(lines: Iterable[bytes | None], truncated: bool = False) -> Extracted:
    """The answered requests of a transcript's lines, in the order they were sent (see the module's doc)."""
    sent: list[Frame] = []
    pending: dict[tuple[int | None, _IdKey], int] = {}
    answered: set[int] = set()
    skipped = 0
    processes = _Processes()
    for line in lines:
        event = _event(line)
        if event is None:
            skipped += 1
            continue
        kind, data, pid = event
        if kind == "note":
            processes.note(data)
            continue
        if kind not in ("sent", "received"):
            continue
        message = _message(data)
        if message is None:
            continue
        key = _id_key(message.get("id")) if "id" in message else None
        if kind == "received":
            if "method" not in message and key is not None and (pid, key) in pending:
                answered.add(pending.pop((pid, key)))
            continue
        if key is None or not isinstance(message.get("method"), str):
            continue
        frame = data.encode("utf-8", errors="backslashreplace")
        if not frame.endswith(b"\n"):
            frame += b"\n"
        pending[(pid, key)] = len(sent)
        if pid is None:
            process, guessed = processes.assign(key[1])
        else:
            process, guessed = processes.tell(str(pid), key[1]), False
        sent.append(Frame(frame, key[1], process, guessed))
    frames = [frame for index, frame in enumerate(sent) if index in answered]
    unanswered = len(sent) - len(answered)
    return Extracted(frames, unanswered, skipped, truncated)


def read_transcript(
    path: Path, limit: int = MAX_TRANSCRIPT_BYTES, line_limit: int = MAX_LINE_BYTES
) -> Extracted:
    """`extract` over a transcript file, of which at most `limit` bytes are read."""
    truncated = path.stat().st_size > limit
    return extract(_lines(path, limit, line_limit), truncated)


def _answer_id(line: bytes) -> _IdKey | None:
    message = _message(line.decode("utf-8", errors="replace"))
    return _id_key(message.get("id")) if message is not None and "method" not in message else None


def replay(target: Target, frames: list[Frame], timeout: float = ANSWER_TIMEOUT) -> Replay:
    """Each frame written and its answer read by a bare client, on one fresh initialized process per process
    of the run (all started before the clock starts, all ended after).

    Only write-to-answer time is summed: the id check after each answer is off the clock. A request left
    unanswered for `timeout` seconds ends the replay (its processes are ended); the figures say so.
    """
    loops: dict[str, BareLoop] = {}
    progress = [0]
    stop = threading.Event()

    def watchdog() -> None:
        seen, since = -1, time.monotonic()
        while not stop.wait(0.5):
            if progress[0] != seen:
                seen, since = progress[0], time.monotonic()
            elif time.monotonic() - since > timeout:
                for loop in loops.values():
                    loop.proc.kill()
                return

    total = 0.0
    done = 0
    reason = ""
    guard = threading.Thread(target=watchdog, name="replay-watchdog", daemon=True)
    try:
        try:
            for frame in frames:
                if frame.process not in loops:
                    loops[frame.process] = BareLoop(target, drain_stderr=True, initialize_seconds=timeout)
        except (OSError, ValueError, ServerDidNotStart) as exc:
            return Replay(0, 0.0, not frames, f"a replay process did not start: {exc}", len(loops))
        guard.start()
        for frame in frames:
            proc = loops[frame.process].proc
            assert proc.stdin is not None and proc.stdout is not None
            want = _id_key(frame.id)
            began = time.perf_counter()
            try:
                proc.stdin.write(frame.data)
                proc.stdin.flush()
            except OSError:
                reason = f"the server stopped reading at request {done + 1}"
                break
            while True:
                line = proc.stdout.readline()
                ended = time.perf_counter()
                if not line or _answer_id(line) == want:
                    break
            if not line:
                reason = (f"no answer to request {done + 1} (id {frame.id!r}) within {timeout:.0f} s"
                          " or the server ended")
                break
            total += ended - began
            done += 1
            progress[0] = done
    finally:
        stop.set()
        if guard.is_alive():
            guard.join()
        for loop in loops.values():
            with contextlib.suppress(OSError):
                loop.close()
    return Replay(done, total, done == len(frames), reason, len(loops))
