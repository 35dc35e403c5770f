"""Bounded shrinking: the first failing example is already evidence, so minimizing it gets a time budget.

Hypothesis shrinks each failure for up to five minutes by default; a server that deviates almost everywhere
would then take many times a conforming run. Each failing test may shrink for `per_test` seconds, and the
whole run for `per_run` seconds; a counterexample cut short says so (`minimized: false`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from hypothesis.internal.conjecture import engine

_DEFAULT = float(engine.MAX_SHRINKING_SECONDS)


@dataclass
class ShrinkBudget:
    """Seconds of shrinking left to the run; sets hypothesis' per-failure shrinking limit before each test."""

    per_test: float = 300.0
    per_run: float = float("inf")
    used: float = 0.0
    _limit: float = 300.0

    def begin(self, *, suite_test: bool = True) -> None:
        """Before a test: its limit is its share, never more than what the run has left (a test that is not
        one of the suite's, e.g. the harness's own, gets hypothesis' default)."""
        self._limit = max(0.0, min(self.per_test, self.per_run - self.used)) if suite_test else _DEFAULT
        # Documented as monkeypatchable ("we do allow users to monkeypatch all of these variables").
        engine.MAX_SHRINKING_SECONDS = self._limit  # type: ignore[assignment]

    def end(self, first_failure: float | None) -> bool:
        """After a failed test: charge its shrinking to the run; whether it finished before its limit."""
        if first_failure is None:
            return True
        spent = max(0.0, time.monotonic() - first_failure)
        self.used += min(spent, self._limit)
        return spent < self._limit
