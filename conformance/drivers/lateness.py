"""What a run learned about each command's late stderr: whether its processes write a call's stderr after that
call's answer (a relay, `docker run -i`, a shell wrapper, an async logger), so a call owing no box is waited
for until its stderr is quiet.

One `Lateness` belongs to a run (its targets carry it, `Target.lateness`, and hand it to every driver they
make), so what one run learned never reaches the next run of a long-lived process (a pytest worker, `compare`
running two targets of one command). Learned by any process of a command, it is kept per command: a process
started later in the run waits from its first call (a witness replayed on a fresh process, most often a lone
refusal, is one call long). It carries the run's `StrayLag` too (`strays`: how long answers follow stray
stdout lines) and its `Outlived` (`ends`: the ends a process of a command outlived a whole bound for), so
every driver the run's targets make shares that learning without a path of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Final

from conformance.drivers.ending import Outlived
from conformance.drivers.stray_lag import StrayLag

SILENT_WAITS: Final = 50
"""Waits in a row for calls owing no box of a command known late with nothing arriving, after which its calls
owing no box are no longer waited for (a relay whose server writes nothing on a refusal pays a few seconds a
run, not a quiet period a call), until its stderr is seen late again."""
CHATTER_WAITS: Final = 2
"""Waits for a call owing no box that ran to their limit with stderr still arriving (a heartbeat, a log
stream: not a call's late lines), after which the command is taken to chatter: its calls owing no box are no
longer waited for in the run. A direct server writing a heartbeat line every 20 ms made each refusal wait its
whole second and read some 50 heartbeat lines as its own."""
PROBES: Final = 3
"""Tool calls owing no box of a command whose lateness is unknown that are waited for to learn it, each with
nothing arriving late (then none is, unless its stderr is seen late)."""
QUIET_STARTS: Final = 2
"""Processes of a command that held no stderr at their first answer and got none while waited for (a server
writing no banner), after which its processes' start-up is no longer waited for, until one's start-up stderr
is seen arriving after that answer: a banner-less server costs two waits a run, a relay's banner none."""


class Lateness:
    """Per command of one run: seen writing stderr late, waits owing no box with nothing arriving in a row,
    and the probing waits that found nothing. Safe to share between the threads of a run."""

    def __init__(self, silent_waits: int = SILENT_WAITS, probes: int = PROBES) -> None:
        self.silent_waits = silent_waits
        self.probes = probes
        self._late: set[tuple[str, ...]] = set()
        self._silent: dict[tuple[str, ...], int] = {}
        self._misses: dict[tuple[str, ...], int] = {}
        self._streams: dict[tuple[str, ...], int] = {}
        self._quiet_starts: dict[tuple[str, ...], int] = {}
        self._lag: dict[tuple[str, ...], float] = {}
        self._banner: dict[tuple[str, ...], bytes] = {}
        self._lock = threading.Lock()
        self.strays = StrayLag()
        """The run's learning of how long each command's answers follow its stray stdout lines (the grace
        both drivers give such a line, `StrayLag.grace`)."""
        self.ends = Outlived()
        """The run's learning of the ends each command's processes outlive (`drivers/ending.py`): a server
        that never ends on one pays a whole bound for it once a run."""

    def known(self, command: Sequence[str]) -> bool:
        """Whether a process of `command` was seen writing a call's stderr after that call's answer, and its
        waits owing no box have not stayed silent `silent_waits` times in a row since."""
        key = tuple(command)
        with self._lock:
            return (key in self._late and self._silent.get(key, 0) < self.silent_waits
                    and self._streams.get(key, 0) < CHATTER_WAITS)

    def chatters(self, command: Sequence[str]) -> bool:
        """Whether `command`'s stderr was seen streaming through `CHATTER_WAITS` waits (each ran to its limit
        with stderr still arriving): what arrives after an answer is no call's own; no call waits."""
        with self._lock:
            return self._streams.get(tuple(command), 0) >= CHATTER_WAITS

    def probing(self, command: Sequence[str]) -> bool:
        """Whether a tool call of `command` owing no box is still waited for to learn if its stderr comes
        late: the first `probes` of a run are (a refusal logged through a relay then teaches it on the run's
        first processes, before a witness is replayed), then none unless its stderr is seen arriving late."""
        key = tuple(command)
        with self._lock:
            return self._misses.get(key, 0) < self.probes and self._streams.get(key, 0) < CHATTER_WAITS

    def waits(self, command: Sequence[str]) -> bool:
        """Whether a tool call of `command` owing no box is waited for after its answer (`known` or
        `probing`)."""
        return self.known(command) or self.probing(command)

    def lag(self, command: Sequence[str]) -> float:
        """The longest any process of `command` in the run was seen completing a box or its start-up stderr
        after the answer (seconds; 0.0: never): a box due on a fresh process waits twice that for its first
        bytes, not a fixed quiet period a relay slowed by load outlasts."""
        with self._lock:
            return self._lag.get(tuple(command), 0.0)

    def note_lag(self, command: Sequence[str], seconds: float) -> None:
        """A box or a start-up's stderr of `command` was seen completing `seconds` after its answer."""
        key = tuple(command)
        with self._lock:
            self._lag[key] = max(self._lag.get(key, 0.0), seconds)

    def banner(self, command: Sequence[str]) -> bytes | None:
        """The start-up stderr a process of `command` was last seen writing in the run (its banner), or None:
        a later process's banner arriving after its first answers is known by it (`late_banner`)."""
        with self._lock:
            return self._banner.get(tuple(command))

    def note_banner(self, command: Sequence[str], banner: bytes) -> None:
        """A process of `command` wrote `banner` at start-up (whole lines, `late_banner.learnable`)."""
        with self._lock:
            self._banner[tuple(command)] = banner

    def waits_for_startup(self, command: Sequence[str]) -> bool:
        """Whether a process of `command` holding no stderr when its first request is answered is waited for
        (`WireDriver`, `RawServer`): its banner may still be on its way through a relay. Not once
        `QUIET_STARTS` processes got nothing while waited for, unless a start-up's stderr came late since."""
        with self._lock:
            return self._quiet_starts.get(tuple(command), 0) < QUIET_STARTS

    def note_startup(self, command: Sequence[str], arrived: bool) -> None:
        """A start-up wait ended: stderr arrived after the first answer (the command is late, and every
        start-up of it is waited for again), or none did (one more quiet start)."""
        key = tuple(command)
        with self._lock:
            if arrived:
                self._quiet_starts[key] = 0
                self._late_locked(key)
            else:
                self._quiet_starts[key] = self._quiet_starts.get(key, 0) + 1

    def note_late(self, command: Sequence[str]) -> None:
        """A process of `command` wrote a call's stderr after that call's answer: every call waits again."""
        with self._lock:
            self._late_locked(tuple(command))

    def _late_locked(self, key: tuple[str, ...]) -> None:
        self._late.add(key)
        self._silent[key] = 0

    def note_wait(self, command: Sequence[str], arrived: bool, streaming: bool = False) -> None:
        """The one rule after a wait for a call owing no box (the wire driver's and a raw process's): stderr
        arrived late, so the command is late; known late and nothing came, one more silent wait in a row;
        otherwise a probing wait that found nothing. `streaming`: the wait ran to its limit with stderr still
        arriving, one more towards `chatters`."""
        key = tuple(command)
        with self._lock:
            if streaming:
                self._streams[key] = self._streams.get(key, 0) + 1
            if arrived:
                self._late_locked(key)
            elif key in self._late and self._silent.get(key, 0) < self.silent_waits:
                self._silent[key] = self._silent.get(key, 0) + 1
            else:
                self._misses[key] = self._misses.get(key, 0) + 1
