"""A fresh process's first box through a relay is its call's even when the relay is slower than the fixed
quiet period: with a box due and nothing on stderr yet, a call waited `SETTLE_QUIET` (0.1 s) for its first
bytes; at load 7-14 a relay forwarding 5-30 ms late outlasted it, the box landed on the next call and the
evidence replay of the opening calls through the relay found a difference (issue 43). The wait now follows
the lag the run saw on the command's processes, their banners included (`Lateness.lag`). Simulated here by a
relay 120-150 ms late on real processes: what load does to a fast one, made certain.
"""

from __future__ import annotations

import sys

from conformance.core.jsontypes import JSON
from conformance.drivers.lateness import Lateness
from conformance.drivers.wire import SETTLE_QUIET, WireDriver
from conformance.suite.rawproc import RawServer
from conformance.targets.specs import resolve_target
from tests.cli import REPO

REFERENCE = [sys.executable, "-m", "reference_server"]
SLOW_RELAY = [sys.executable, str(REPO / "tests" / "servers" / "late_stderr.py"), "--delay-ms", "120,150",
              "--", *REFERENCE]
"""The reference behind a relay forwarding its stderr 120 to 150 ms late, in two pieces: later than
`SETTLE_QUIET`."""
CALLS: list[dict[str, JSON]] = [
    {"thought": "plan", "thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": True},
    {"thought": "", "thoughtNumber": 1},
    {"thought": "a branch", "thoughtNumber": 2, "totalThoughts": 3, "nextThoughtNeeded": True,
     "branchFromThought": 1, "branchId": "b"},
]


def _stderrs(command: list[str], lateness: Lateness) -> list[bytes]:
    """Each call's stderr on a fresh process, the calls made at once after the handshake."""
    with WireDriver(command, timeout=60, lateness=lateness) as driver:
        driver.initialize()
        return [driver.call_tool("sequentialthinking", arguments).stderr for arguments in CALLS]


def test_a_fresh_processes_first_box_through_a_slow_relay_is_its_calls() -> None:
    """The run's first process behind the relay teaches its lag; a fresh process's calls then each get the box
    the direct reference writes for them, the first one too."""
    assert SETTLE_QUIET < 0.12, "the relay must be later than the fixed quiet period to test anything"
    direct = _stderrs(REFERENCE, Lateness())
    lateness = Lateness()
    _stderrs(SLOW_RELAY, lateness)  # the run's first process: its banner and boxes came late
    assert lateness.lag(SLOW_RELAY) > 0
    got = _stderrs(SLOW_RELAY, lateness)
    assert got == direct, [(n, a[:40], b[:40]) for n, (a, b) in enumerate(zip(direct, got, strict=True))
                           if a != b]


def test_a_fresh_raw_processes_first_box_through_a_slow_relay_is_its_calls() -> None:
    """The same on a raw process (LOOP-A's, the fresh runs'): the box read ahead after the answer is the
    call's, not what the next read finds written between calls."""
    target = resolve_target("cmd:" + " ".join(SLOW_RELAY))
    _stderrs(SLOW_RELAY, target.lateness)
    with RawServer(target, sandbox={}, timeout=60) as raw:
        raw.initialize()
        raw.stderr_now()
        said = []
        for arguments in CALLS:
            raw.request("tools/call", {"name": "sequentialthinking", "arguments": arguments})
            said.append(raw.stderr_now().count("┌".encode()))
    assert said == [1, 0, 1], said
