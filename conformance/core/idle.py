"""How long a process is held idle after a call before what it does between calls is judged: one while for the
suite's idle check and the gate's idle witness, so both see the same timers on every run (issue 43)."""

from __future__ import annotations

from typing import Final

IDLE_HOLD: Final = 6.0
"""Seconds: past a 1, 2.5 or 5 s timer's period, short of a 10 s one's (a period at the bound would be seen on
some runs only). A timer slower than this is met by the search's longer waits on some runs only, never by the
idle witness, and its departure is then seen once."""
