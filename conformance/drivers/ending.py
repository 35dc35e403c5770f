"""How long a process is given for what it owes without a request to answer (its end once stdin closes, a
signal or a broken stdout; a long render still arriving), measured from its own pace in the run: the call
timeout at least, as any answer gets, more for a process whose answers come slowly, and never past
`END_LIMIT` call timeouts. Each wait ends on its event (the exit, the last byte); only a process that never
gets there pays the bound."""

from __future__ import annotations

from typing import Final

END_PACE: Final = 25
"""The bound is at least this many times the process's slowest round trip in the run: an exit or a render
comes as late as that process's answers do on a loaded machine (as `test_lifecycle.LINGER_PACE`)."""
END_LIMIT: Final = 3
"""Call timeouts the bound reaches at most: a process whose pace asks for more is too slow to tell a late end
from none (`too_slow`)."""


def end_bound(timeout: float, pace: float) -> float:
    """Seconds a process with call timeout `timeout` and slowest round trip `pace` gets for what it owes."""
    return min(END_LIMIT * timeout, max(timeout, END_PACE * pace))


def too_slow(timeout: float, pace: float) -> bool:
    """Whether `end_bound` was cut at its limit: the process's own pace asked for longer, so still running (or
    still writing) at the bound is slowness, not a departure."""
    return END_PACE * pace > END_LIMIT * timeout
