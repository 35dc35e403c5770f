"""The circuit breaker: a target that keeps dying, hanging or breaking the protocol stops the run early.

Each such failure costs a restart or a whole call timeout, and says nothing new after the first few: past
the thresholds the remaining tests are not started, and their records are `not run` with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

CONSECUTIVE: Final = 3
"""Tests in a row that ended in a target failure (no test passed or failed in between)."""
TOTAL: Final = 10
"""Tests in the whole run that ended in a target failure."""
TIMEOUTS: Final = 3
"""Tests that ended because the target did not answer in time: each one costs a whole call timeout."""


@dataclass
class Breaker:
    """Counts tests ending in `error` (a target failure); `tripped` says why the rest will not run."""

    consecutive: int = 0
    total: int = 0
    timeouts: int = 0
    tripped: str | None = None

    def record(self, status: str, *, timeout: bool = False, reason: str = "") -> None:
        if status != "error":
            if status in ("passed", "failed"):
                self.consecutive = 0
            return
        self.consecutive += 1
        self.total += 1
        self.timeouts += timeout
        if self.tripped is not None:
            return
        why = ""
        if self.consecutive >= CONSECUTIVE:
            why = f"{self.consecutive} tests in a row"
        elif self.timeouts >= TIMEOUTS:
            why = f"{self.timeouts} tests timed out"
        elif self.total >= TOTAL:
            why = f"{self.total} tests"
        if why:
            last = f" (last: {reason})" if reason else ""
            self.tripped = f"the target failed in {why}; the run stopped early{last}"[:500]
