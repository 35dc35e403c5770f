"""The eras a run meets its target as, and each (target, era) met once: the meeting every spec check reads.

One fresh process per era answers what `calls/meetings.py` asks; the suite's spec tests share it, so a run
pays a handful of calls per era, not per check.
"""

from __future__ import annotations

import threading
from typing import Final

from conformance.calls.meetings import Meeting, meet, meets
from conformance.core.eras import AUTO, ERAS, Era, era_named
from conformance.targets.specs import Target

DEFAULT_ERAS: Final = "default"
ALL_ERAS: Final = "all"


def eras_of(option: str | None) -> tuple[Era, ...]:
    """The eras a run meets its target as: `default` (`auto`, the newest revision the target accepts; the
    seed's records are a 2024-11-05 client's already), `all` (the five revisions and `auto`), or a
    comma-separated list of revisions and `auto`. Each costs one server process."""
    chosen = (option or DEFAULT_ERAS).strip()
    if chosen == DEFAULT_ERAS:
        return (AUTO,)
    if chosen == ALL_ERAS:
        return (*ERAS, AUTO)
    return tuple(era_named(name.strip()) for name in chosen.split(",") if name.strip())


class EraMeetings:
    """Each (target, era) met once per run, on first need; the run holds one (the plugin's run state)."""

    def __init__(self, timeout: float, *, advisory_as_xfail: bool = False) -> None:
        self.timeout = timeout
        self.advisory_as_xfail = advisory_as_xfail
        """Whether a guidance departure is an expected failure here: in the project's own test run (no results
        written), where the original departs from guidance by design; a run of the harness writes it as a
        failure, which the gate reads as advisory."""
        self._met: dict[tuple[str, str], Meeting] = {}
        self._lock = threading.Lock()

    def settled(self, spec: str) -> dict[str, str | None]:
        """Each era `spec` was met as and the revision it settled on (None: none agreed), in meeting order."""
        with self._lock:
            return {name: meeting.negotiated for (met, name), meeting in self._met.items() if met == spec}

    def meets(self, spec: str) -> dict[str, str]:
        """Each era `spec` was met as and what its client met there (`calls/meetings.py` `meets`)."""
        with self._lock:
            return {name: meets(meeting) for (met, name), meeting in self._met.items() if met == spec}

    def of(self, target: Target, era: Era) -> Meeting:
        key = (target.spec, era.name)
        with self._lock:
            if key not in self._met:
                self._met[key] = meet(target, era, timeout=self.timeout)
            return self._met[key]
