"""The eras a run meets its target as, and each (target, era) met once: the meeting every spec check reads.

One process per era answers what `calls/meetings.py` asks; the suite's spec tests share it, so a run pays a
handful of calls per era, not per check. That process is one the raw pool's checks are done with when the
pool has one (`source`, the pool's `hand_over`), not a new one: its meeting then opens with a repeated
handshake, which the releases and the reference answer as a first one (measured part by part, after the fresh
runs' sequence, on npm:0.6.2, 2025.7.1, 2025.11.25, 2025.12.18, 2026.7.4, 2026.8.31 and the reference as the
auto client, and on npm:0.6.2, 2026.8.31 and the reference as each revision's: only the store's count and
labels in the calls' answers differ, and no spec check reads those as values). A meeting whose handshake or
exchange fails there, or that settles on no revision, is made again on a new process, so that a server
refusing a repeated handshake is judged as before, on a first one.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable
from typing import Final

from conformance.calls.meetings import Meeting, meet, meets
from conformance.core.eras import AUTO, ERAS, Era, era_named
from conformance.core.jsontypes import JSON
from conformance.targets.specs import Target

DEFAULT_ERAS: Final = "default"
Source = Callable[[Target], "tuple[subprocess.Popen[bytes], dict[str, JSON], bytes] | None"]
"""Where a meeting's process may come from before one is started: a running, initialized process of the
target other checks are done with (the raw pool's `hand_over`), with its initialize answer and the stderr
read from its start; None when there is none."""
ALL_ERAS: Final = "all"


def eras_of(option: str | None) -> tuple[Era, ...]:
    """The eras a run meets its target as: `default` (`auto`, the newest revision the target accepts; the
    seed's records are a 2024-11-05 client's already), `all` (the five revisions and `auto`), or a
    comma-separated list of revisions and `auto`. Each costs one server process, unless a process the raw
    checks are done with serves it."""
    chosen = (option or DEFAULT_ERAS).strip()
    if chosen == DEFAULT_ERAS:
        return (AUTO,)
    if chosen == ALL_ERAS:
        return (*ERAS, AUTO)
    return tuple(era_named(name.strip()) for name in chosen.split(",") if name.strip())


class EraMeetings:
    """Each (target, era) met once per run, on first need; the run holds one (the plugin's run state)."""

    def __init__(
        self, timeout: float, *, advisory_as_xfail: bool = False, source: Source | None = None
    ) -> None:
        self.timeout = timeout
        self.source = source
        """Asked for a running process of the target before a meeting starts one (`Source`)."""
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
                self._met[key] = self._meet(target, era)
            return self._met[key]

    def _meet(self, target: Target, era: Era) -> Meeting:
        """`era`'s meeting on a process the source gives, else (or when it fails there) on a new one."""
        taken = self.source(target) if self.source is not None else None
        if taken is not None:
            proc, _, said = taken
            meeting = meet(target, era, timeout=self.timeout, running=(proc, said))
            if meeting.failure is None and meeting.negotiated is not None:
                return meeting
        return meet(target, era, timeout=self.timeout)
