"""A record of every frame on the pipe, streamed to disk so a long run keeps flat memory.

The last `keep` events stay in memory so a verdict can quote the exchange behind it (`excerpt`, bounded).
The file is capped at `max_bytes`: past the cap a note says so, and the last line counts what was not written.
Stderr read in many small pieces becomes one event per process and stretch between frames (at most
`STDERR_EVENT` long), so a server trickling stderr costs a few events, not one per read.
"""

from __future__ import annotations

import itertools
import json
import math
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass
from json.encoder import encode_basestring
from pathlib import Path
from typing import IO, Final, Literal

from conformance.core.create import ensure_folder, open_append

EventKind = Literal["sent", "received", "stderr", "note"]

DEFAULT_MAX_BYTES: Final = 128 << 20
"""The largest transcript file written (bytes); later events are counted, not written."""
STDERR_EVENT: Final = 64 << 10
"""Stderr is gathered into one event until a frame, a note, another process's stderr or this many
characters."""
EXCERPT_CHARS: Final = 64 << 10
"""The characters of event data a report quotes from a transcript at most."""
KEEP_CHARS: Final = 8 << 20
"""The characters of event data held in memory at most (besides the `keep` count): a flood of large events
costs a bounded amount of memory; the file has them all, up to its cap."""


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that crossed (or was said about) the pipe; `seq` counts from 0 over the transcript's life.
    `pid` is the server process a frame or stderr crossed from or to (notes have none): one transcript holds
    the frames of every process of a target, interleaved."""

    seq: int
    kind: EventKind
    data: str
    t: float
    pid: int | None = None

    def to_json(self) -> dict[str, object]:
        event: dict[str, object] = {"seq": self.seq, "kind": self.kind, "data": self.data, "t": self.t}
        if self.pid is not None:
            event["pid"] = self.pid
        return event

    def line(self) -> bytes:
        """The event's line in the file: `json.dumps(self.to_json(), ensure_ascii=False)` and a newline, in
        UTF-8 (a lone surrogate backslash-escaped), written out directly: the transcript writes one per frame,
        and the general encoder's dict walk cost about as much as the rest of a call's driver work."""
        t = repr(self.t) if math.isfinite(self.t) else json.dumps(self.t)
        data = encode_basestring(self.data)
        pid = "" if self.pid is None else f', "pid": {int(self.pid)}'
        text = f'{{"seq": {self.seq}, "kind": "{self.kind}", "data": {data}, "t": {t}{pid}}}\n'
        return text.encode("utf-8", errors="backslashreplace")


def decode(data: bytes) -> str:
    """Bytes as text without ever failing: invalid UTF-8 stays visible as backslash escapes."""
    return data.decode("utf-8", errors="backslashreplace")


class Transcript:
    """Thread-safe event log (the stderr reader thread writes to it too)."""

    def __init__(
        self, path: Path | str | None = None, *, keep: int = 2000, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self._events: deque[Event] = deque(maxlen=keep)
        self._seq = 0
        self._counts: Counter[EventKind] = Counter()
        self._lock = threading.Lock()
        self._file: IO[bytes] | None = None
        self._pending: list[str] = []
        self._pending_size = 0
        self._pending_t = 0.0
        self._pending_pid: int | None = None
        self._held = 0
        self.max_bytes = max_bytes
        self._written = 0
        self._unwritten_events = 0
        self._unwritten_bytes = 0
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            ensure_folder(self.path.parent)
            self._file = open_append(self.path)

    def record(
        self, kind: EventKind, data: str | bytes, t: float | None = None, pid: int | None = None
    ) -> None:
        """One event; stderr is gathered until the next frame or note, or another process's stderr."""
        text = decode(data) if isinstance(data, bytes) else data
        now = time.monotonic() if t is None else t
        with self._lock:
            if kind != "stderr":
                self._flush_stderr_locked()
                self._append_locked(kind, text, now, pid)
                return
            if self._pending and pid != self._pending_pid:
                self._flush_stderr_locked()
            if not self._pending:
                self._pending_t = now
                self._pending_pid = pid
            self._pending.append(text)
            self._pending_size += len(text)
            if self._pending_size >= STDERR_EVENT:
                self._flush_stderr_locked()

    def _flush_stderr_locked(self) -> None:
        if self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            self._pending_size = 0
            self._append_locked("stderr", text, self._pending_t, self._pending_pid)

    def _append_locked(self, kind: EventKind, text: str, t: float, pid: int | None = None) -> None:
        event = Event(self._seq, kind, text, t, pid)
        self._seq += 1
        self._counts[kind] += 1
        if len(self._events) == self._events.maxlen:
            self._held -= len(self._events[0].data)
        self._events.append(event)
        self._held += len(text)
        while self._held > KEEP_CHARS and len(self._events) > 1:
            self._held -= len(self._events.popleft().data)
        if self._file is None:
            return
        line = event.line()
        size = len(line)
        if self._unwritten_events or self._written + size > self.max_bytes:
            if not self._unwritten_events:
                self._write_locked(self._note_line(
                    f"transcript cap of {self.max_bytes} bytes reached: later events are counted, not written"
                ))
            self._unwritten_events += 1
            self._unwritten_bytes += size
            return
        self._write_locked(line)

    def _note_line(self, text: str) -> bytes:
        """A note written to the file only (its seq is the next event's, its kind says it is not a frame)."""
        note = {"seq": self._seq, "kind": "note", "data": text, "t": time.monotonic()}
        return (json.dumps(note) + "\n").encode("utf-8")

    def _write_locked(self, line: bytes) -> None:
        assert self._file is not None, "the harness could not write the transcript: its file is not open"
        self._file.write(line)
        self._written += len(line)

    def note(self, text: str) -> None:
        self.record("note", text)

    def mark(self) -> int:
        """Position to pass to `events_since` later, to cut out what happened in between."""
        with self._lock:
            self._flush_stderr_locked()
            return self._seq

    def excerpt(self, mark: int, end: int | None = None, chars: int = EXCERPT_CHARS) -> list[Event]:
        """The latest events from `mark` (up to `end`) whose data fit in `chars`, oldest first; a note first
        says what was left out. The last event is always there, cut to `chars` if it alone is longer."""
        events = [e for e in self.events_since(mark) if end is None or e.seq < end]
        kept: list[Event] = []
        room = chars
        for event in reversed(events):
            if len(event.data) > room:
                if not kept:
                    shown = max(chars - 64, 0)
                    cut = f"{event.data[:shown]}… [{len(event.data) - shown} characters left out]"
                    kept.append(Event(event.seq, event.kind, cut, event.t))
                break
            kept.append(event)
            room -= len(event.data)
        kept.reverse()
        left = events[: len(events) - len(kept)]
        if left:
            size = sum(len(e.data) for e in left)
            said = f"{len(left)} earlier events ({size} characters) left out"
            kept.insert(0, Event(left[0].seq, "note", said, left[0].t))
        return kept

    def events_since(self, mark: int) -> list[Event]:
        """Events recorded at or after `mark` that are still held in memory (older ones are on disk only)."""
        with self._lock:
            self._flush_stderr_locked()
            if not self._events:
                return []
            start = max(0, mark - self._events[0].seq)
            return list(itertools.islice(self._events, start, None))

    def count(self, kind: EventKind) -> int:
        """How many events of `kind` were recorded over the transcript's whole life (e.g. frames sent)."""
        with self._lock:
            return self._counts[kind]

    @property
    def events(self) -> list[Event]:
        with self._lock:
            self._flush_stderr_locked()
            return list(self._events)

    def __len__(self) -> int:
        with self._lock:
            return self._seq

    def flush(self) -> None:
        with self._lock:
            self._flush_stderr_locked()
            if self._file is not None:
                self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._flush_stderr_locked()
            if self._file is not None:
                if self._unwritten_events:
                    self._write_locked(self._note_line(
                        f"{self._unwritten_events} events ({self._unwritten_bytes} bytes) not written: "
                        f"transcript cap of {self.max_bytes} bytes"
                    ))
                self._file.close()
                self._file = None

    def __enter__(self) -> Transcript:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
