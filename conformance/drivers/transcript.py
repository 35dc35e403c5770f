"""A record of every frame on the pipe, streamed to disk so a long run keeps flat memory.

The last `keep` events stay in memory so a verdict can quote the exchange behind it.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

EventKind = Literal["sent", "received", "stderr", "note"]


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that crossed (or was said about) the pipe; `seq` counts from 0 over the transcript's life."""

    seq: int
    kind: EventKind
    data: str
    t: float

    def to_json(self) -> dict[str, object]:
        return {"seq": self.seq, "kind": self.kind, "data": self.data, "t": self.t}


def decode(data: bytes) -> str:
    """Bytes as text without ever failing: invalid UTF-8 stays visible as backslash escapes."""
    return data.decode("utf-8", errors="backslashreplace")


class Transcript:
    """Thread-safe event log (the stderr reader thread writes to it too)."""

    def __init__(self, path: Path | str | None = None, *, keep: int = 2000) -> None:
        self._events: deque[Event] = deque(maxlen=keep)
        self._seq = 0
        self._counts: Counter[EventKind] = Counter()
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8", errors="backslashreplace")

    def record(self, kind: EventKind, data: str | bytes, t: float | None = None) -> Event:
        text = decode(data) if isinstance(data, bytes) else data
        with self._lock:
            event = Event(self._seq, kind, text, time.monotonic() if t is None else t)
            self._seq += 1
            self._counts[kind] += 1
            self._events.append(event)
            if self._file is not None:
                self._file.write(json.dumps(event.to_json(), ensure_ascii=False) + "\n")
        return event

    def note(self, text: str) -> Event:
        return self.record("note", text)

    def mark(self) -> int:
        """Position to pass to `events_since` later, to cut out what happened in between."""
        with self._lock:
            return self._seq

    def events_since(self, mark: int) -> list[Event]:
        """Events recorded at or after `mark` that are still held in memory (older ones are on disk only)."""
        with self._lock:
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
            return list(self._events)

    def __len__(self) -> int:
        with self._lock:
            return self._seq

    def flush(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.flush()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def __enter__(self) -> Transcript:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
