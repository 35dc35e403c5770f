"""What a run learned about each command's answers after stray stdout lines (lines that are not JSON-RPC): how
long an answer was seen following such a line, and whether a wait for one ever ran out unanswered.

A stdio client reads past a stray line to the answer after it (the TypeScript SDK's ReadBuffer, the Python
SDK's stdio_client), so both drivers do, for `STRAY_GRACE` at most. A server that writes garbage in place of
every answer then made each call wait the whole grace: some 30 witness calls made its red run 7x slower than a
green one (issue 43). So the grace is learned, per command, as `Lateness` learns late stderr: the first stray
line of a command waits `STRAY_GRACE`; once a wait has run out unanswered (`UNANSWERED_AFTER` at least), later
waits are `LAG_FACTOR` times the longest lag an answer was seen to follow a stray line by, `SHORT_GRACE` at
least and `STRAY_GRACE` at most. A port that prints before each answer never runs a wait out, so it keeps the
whole grace; one whose answers follow a stray line by half a second or more keeps it too.

One `StrayLag` belongs to a run (`Lateness.strays`, carried with the run's targets to every driver they make),
so a run never learns from another run of the same long-lived process (a pytest worker).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Final

STRAY_GRACE: Final = 2.0
"""Seconds an answer is still awaited after a stray stdout line (one that is not JSON-RPC) while nothing
taught a shorter wait: a stdio client reports such a line and reads on, so the answer that follows is still
the call's; a server writing only garbage fails within this, not its timeout."""
SHORT_GRACE: Final = 0.25
"""The least a learned grace is: a command whose stray lines were never answered still gets this long."""
LAG_FACTOR: Final = 4.0
"""A learned grace is this many times the longest lag seen between a stray line and the answer after it."""
UNANSWERED_AFTER: Final = STRAY_GRACE / 2
"""Seconds a stray line must have stood unanswered for its wait to teach that the command's stray lines go
unanswered (a stray line just before a call's own deadline teaches nothing)."""


class StrayLag:
    """Per command of one run: the longest lag an answer followed a stray line by, and whether a wait after
    one ran out unanswered. Safe to share between the threads of a run."""

    def __init__(self) -> None:
        self._lag: dict[tuple[str, ...], float] = {}
        self._unanswered: set[tuple[str, ...]] = set()
        self._lock = threading.Lock()

    def grace(self, command: Sequence[str]) -> float:
        """How long an answer is awaited after a stray line of `command` (seconds): `STRAY_GRACE` until a
        wait ran out unanswered, then `LAG_FACTOR` times the longest lag learned, between `SHORT_GRACE` and
        `STRAY_GRACE`."""
        key = tuple(command)
        with self._lock:
            if key not in self._unanswered:
                return STRAY_GRACE
            return min(STRAY_GRACE, max(SHORT_GRACE, LAG_FACTOR * self._lag.get(key, 0.0)))

    def lag(self, command: Sequence[str]) -> float:
        """The longest an answer of `command` was seen following a stray line (seconds; 0.0: never)."""
        with self._lock:
            return self._lag.get(tuple(command), 0.0)

    def unanswered(self, command: Sequence[str]) -> bool:
        """Whether a wait after a stray line of `command` ran out with no answer (`UNANSWERED_AFTER` at
        least)."""
        with self._lock:
            return tuple(command) in self._unanswered

    def note_answer(self, command: Sequence[str], seconds: float) -> None:
        """An answer of `command` was read `seconds` after a stray line its call met first."""
        key = tuple(command)
        with self._lock:
            self._lag[key] = max(self._lag.get(key, 0.0), seconds)

    def note_unanswered(self, command: Sequence[str], seconds: float) -> None:
        """A wait that met a stray line of `command` ended `seconds` after it with no answer (its grace or the
        call's own deadline ran out): the command's stray lines go unanswered when it stood long enough."""
        if seconds < UNANSWERED_AFTER:
            return
        with self._lock:
            self._unanswered.add(tuple(command))
