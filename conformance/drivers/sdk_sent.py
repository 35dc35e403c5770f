"""What the official client sent, as the wire frames a replay sends: a check through the SDK driver keeps no
transcript of its own, so without this its failing example has no call to replay and no pair of its own, and
no pinned pair of a baseline can cover it (issue 43: held-out-multi-6's strict-schema fork, OBJ-4/a2's host
check drawing a whitespace thought the fork refuses, "new" under 5 of 9 cells)."""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Mapping
from typing import Any, Final

FRAMES_KEPT: Final = 2000
"""The last frames kept, across every SDK driver of the run: a failing example's calls are its last ones."""
FRAME_KEPT_CHARS: Final = 64 << 10
"""A longer frame is not kept (and makes the span holding it unreplayable): a bounded log."""


class SentLog:
    """Positions in the frames every SDK driver sent, for the span of one check or one of its examples."""

    def __init__(self, kept: int = FRAMES_KEPT) -> None:
        self._frames: deque[tuple[int, int, str | None]] = deque(maxlen=kept)
        """(position, driver serial, frame); None for a frame too long to keep or not JSON."""
        self._total = 0
        self._serials = itertools.count(1)
        self._lock = threading.Lock()

    def serial(self) -> int:
        """A new driver's number: a span's frames are those of the last driver written to."""
        return next(self._serials)

    def mark(self) -> int:
        """A position, for `since`."""
        with self._lock:
            return self._total

    def wrote(self, serial: int, method: str, params: Mapping[str, Any] | None, request_id: int) -> None:
        """One request a driver sent (its frame as the wire carries it, without the SDK's `_meta`)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        try:
            frame: str | None = json.dumps(message, ensure_ascii=False, separators=(",", ":"),
                                           allow_nan=False)
        except (TypeError, ValueError):
            frame = None
        if frame is not None and len(frame) > FRAME_KEPT_CHARS:
            frame = None
        with self._lock:
            self._frames.append((self._total, serial, frame))
            self._total += 1

    def since(self, start: int, end: int | None = None) -> list[str]:
        """The frames sent from `start` up to `end` by the last driver that sent one in that span; none when
        they are not all kept (fallen out of the log, too long, not JSON)."""
        with self._lock:
            frames = list(self._frames)
        if not frames or frames[0][0] > start:
            return []
        span = [(serial, frame) for position, serial, frame in frames
                if position >= start and (end is None or position < end)]
        if not span:
            return []
        last = span[-1][0]
        mine = [frame for serial, frame in span if serial == last]
        return [] if any(frame is None for frame in mine) else [frame for frame in mine if frame is not None]


SENT: Final = SentLog()
"""The run's one log: the suite's plugin reads the span of a failing check's example from it."""
