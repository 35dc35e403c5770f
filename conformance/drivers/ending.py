"""How long a process is given for what it owes without a request to answer (its end once stdin closes, a
signal or a broken stdout; a long render still arriving), measured from its own pace in the run: the call
timeout at least, as any answer gets, more for a process whose answers come slowly, and never past
`END_LIMIT` call timeouts. Each wait ends on its event (the exit, the last byte); only a process that never
gets there pays the bound, and for an end, once a run: a command whose process outlived a whole bound for an
end gets `KNOWN_SHARE` of the call timeout for that end afterwards (`Outlived`). The wire driver and the raw
processes wait alike (`paced_end`) and keep their pace by one rule (`pace_after`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Final

from conformance.drivers.errors import TooSlow

END_PACE: Final = 25
"""The bound is at least this many times the process's slowest round trip in the run: an exit or a render
comes as late as that process's answers do on a loaded machine (as `test_lifecycle.LINGER_PACE`)."""
END_LIMIT: Final = 3
"""Call timeouts the bound reaches at most: a process whose pace asks for more is too slow to tell a late end
from none (`too_slow`)."""
KNOWN_SHARE: Final = 0.1
"""The share of the call timeout an end is waited for (its pace rule above it) once a process of the same
command outlived a whole `end_bound` for that end in the run: long enough to see a process of it that does
end, without a second whole bound spent on what the run already saw (a server never ending on stdin's end
met it at four checks and witnesses: 40 s a run at a 10 s call timeout)."""

STDIN_END: Final = "stdin closed"
STDOUT_BROKEN: Final = "stdout closed"


def signal_end(name: str) -> str:
    """The end a signal asks for, by its name (each its own: a server may trap one and not another)."""
    return f"{name} sent"


def pace_after(pace: float, requests: int, round_trip: float) -> float:
    """A process's pace (its slowest round trip, seconds) once its `requests`-th request took `round_trip`:
    the first never counts, as it waited for the process to start too."""
    return max(pace, round_trip) if requests > 1 else pace


def end_bound(timeout: float, pace: float) -> float:
    """Seconds a process with call timeout `timeout` and slowest round trip `pace` gets for what it owes."""
    return min(END_LIMIT * timeout, max(timeout, END_PACE * pace))


def too_slow(timeout: float, pace: float) -> bool:
    """Whether `end_bound` was cut at its limit: the process's own pace asked for longer, so still running (or
    still writing) at the bound is slowness, not a departure."""
    return END_PACE * pace > END_LIMIT * timeout


def known_bound(timeout: float, pace: float) -> float:
    """Seconds an end is waited for once a process of the same command outlived a whole bound for it."""
    return min(end_bound(timeout, pace), max(KNOWN_SHARE * timeout, END_PACE * pace))


def still_running(waited: float, outlived: float | None) -> str:
    """A process not ended by the end of its wait, in words; `outlived`: the whole bound a process of the same
    command outlived for the same end before this wait began (the shorter wait stands on it)."""
    said = f"the process was still running {waited:g} s later (it did not exit"
    if outlived is not None:
        said += f"; another process of it was still running {outlived:g} s after the same end"
    return said + ")"


class Outlived:
    """Per command of one run, the ends (stdin closed, each signal, stdout broken) a process of it was still
    running a whole `end_bound` after: its later processes are waited for `known_bound` for that end, so a
    server that never ends costs one whole bound per end a run, not one per check, meeting and witness. A
    process that does end ends its wait whatever the bound; one ending late (within the whole bound) never
    teaches this. Carried by the run's `Lateness` (`ends`); safe to share between the threads of a run."""

    def __init__(self) -> None:
        self._outlived: dict[tuple[tuple[str, ...], str], float] = {}
        self._lock = threading.Lock()

    def bound(self, command: Sequence[str], end: str, timeout: float, pace: float) -> float:
        """Seconds a process of `command` is given for `end`: `end_bound`, or `known_bound` once outlived."""
        with self._lock:
            known = (tuple(command), end) in self._outlived
        return known_bound(timeout, pace) if known else end_bound(timeout, pace)

    def outlived(self, command: Sequence[str], end: str) -> float | None:
        """The whole bound a process of `command` was still running after `end` (None: none was)."""
        with self._lock:
            return self._outlived.get((tuple(command), end))

    def note(self, command: Sequence[str], end: str, *, status: int | None, waited: float, timeout: float,
             pace: float) -> None:
        """A wait for `end` of a process of `command` ended: still running (`status` None) after a whole
        `end_bound` teaches it; an exit, or a shorter wait, teaches nothing."""
        if status is not None or waited < end_bound(timeout, pace):
            return
        with self._lock:
            self._outlived.setdefault((tuple(command), end), waited)


def paced_end(ends: Outlived, command: Sequence[str], end: str, timeout: float, pace: float,
              wait: Callable[[float], int | None], what: str | None = None) -> tuple[int | None, float]:
    """The exit status of a process of `command` after `end` (None: still running) and the seconds it was
    given, `ends.bound`: `wait(bound)` waits for it, ended by its exit, and what it saw teaches `ends`. With
    `what` (the end in words), still running at a bound its pace cut short is `TooSlow`, said as such, not a
    departure, and teaches nothing; without, the caller reads `too_slow` itself."""
    bound = ends.bound(command, end, timeout, pace)
    status = wait(bound)
    if status is None and what is not None and too_slow(timeout, pace):
        raise TooSlow(f"{what}: the process was still running {bound:g} s later, its slowest answer in "
                      f"this run taking {pace:.2f} s: too slow to tell a late end from none (slow, "
                      f"not a departure)")
    ends.note(command, end, status=status, waited=bound, timeout=timeout, pace=pace)
    return status, bound
