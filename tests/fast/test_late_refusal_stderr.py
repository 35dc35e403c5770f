"""A refusal's stderr is that call's also through a relay: a call owing no box whose stderr line reaches the
pipe after its answer (the held-out readable-output fork through `docker run -i`, a shell wrapper, a relay)
used to land on the next call's stderr, so every relay cell of the flap benchmark failed on that fork (issue
43). Real processes on both sides: the reference with refusals logged on stderr, direct and behind the relay.
What a run learns (`Lateness`) is made per test here, as a run makes its own; the waits it decides are
counted, on a relay of a server silent on refusals and on a direct server with a heartbeat.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
import time
from typing import Final

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.drivers.lateness import CHATTER_WAITS, PROBES, SILENT_WAITS, Lateness
from conformance.drivers.wire import WireDriver
from conformance.suite.rawproc import RawServer
from conformance.targets.specs import resolve_target
from tests.cli import REPO
from tests.side_by_side import side_by_side

LOGGED = [sys.executable, str(REPO / "tests" / "servers" / "reference_fork.py"), "logged"]
"""The reference, each refusal also written on stderr ("Error processing thought: ...") before its answer."""
RELAYED = [sys.executable, str(REPO / "tests" / "servers" / "late_stderr.py"), "--delay-ms", "20,50", "--",
           *LOGGED]
"""The same behind a relay forwarding its stderr 20 to 50 ms late, in pieces (its stdout straight through)."""
BANNER = b"Sequential Thinking MCP Server running on stdio\n"

ACCEPTED: list[dict[str, JSON]] = [
    {"thought": "plan", "thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": True},
    {"thought": "a branch", "thoughtNumber": 2, "totalThoughts": 3, "nextThoughtNeeded": True,
     "branchFromThought": 1, "branchId": "b"},
    {"thought": "line one\nline two", "thoughtNumber": 3, "totalThoughts": 3, "nextThoughtNeeded": False},
]
REFUSED: list[dict[str, JSON]] = [
    {"thought": "", "thoughtNumber": 1},
    {"thoughtNumber": "one"},
    {"thought": "x", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": "no"},
]
CALLS = st.lists(st.sampled_from([*ACCEPTED, *REFUSED]), min_size=1, max_size=5)


def _stderrs(
    command: list[str], calls: list[dict[str, JSON]], lateness: Lateness
) -> tuple[list[bytes], bool]:
    """Each call's stderr on a fresh process of a run knowing `lateness` (its banner read first, whole, as a
    witness replay and compare read it), and whether the process was found to write its stderr late."""
    with WireDriver(command, timeout=60, lateness=lateness) as driver:
        driver.initialize()
        assert driver.stderr_settled(60.0) == BANNER
        said = [driver.call_tool("sequentialthinking", arguments).stderr for arguments in calls]
        return said, driver.stderr_late_unboxed


def _learn_relay(lateness: Lateness) -> None:
    """One process behind the relay, refused until its refusal's line is seen arriving after the answer
    (bounded by a deadline, not a sleep): what a run's first processes do before its witnesses' replays."""
    deadline = time.monotonic() + 120
    with WireDriver(RELAYED, timeout=60, lateness=lateness) as driver:
        driver.initialize()
        while not lateness.known(RELAYED) and time.monotonic() < deadline:
            mark = driver.stderr_mark()
            driver.call_tool("sequentialthinking", REFUSED[0])
            while not driver.stderr_since(mark) and time.monotonic() < deadline:
                time.sleep(0.01)
    assert lateness.known(RELAYED), "the relay's late stderr was never seen"


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(CALLS)
def test_each_calls_stderr_through_the_relay_is_the_direct_servers(calls: list[dict[str, JSON]]) -> None:
    """Refusals (one stderr line each, owing no box) and accepted calls (a box each), in any order, on a
    fresh process: through the relay each call's stderr is the direct server's, the last call's too."""
    lateness = Lateness()  # one run's: learned on its first relayed process, used by the fresh ones after

    def through_the_relay() -> tuple[list[bytes], bool]:
        _learn_relay(lateness)
        return _stderrs(RELAYED, calls, lateness)

    # The direct server's process beside the relay's: what is learned of one command is never the other's.
    (direct, direct_late), (relayed, relayed_late) = side_by_side(lambda: _stderrs(LOGGED, calls, lateness),
                                                                  through_the_relay)
    assert relayed == direct
    assert relayed_late and not direct_late
    refusals = [said for said, arguments in zip(direct, calls, strict=True) if arguments in REFUSED]
    assert all(said.startswith(b"Error processing thought: ") for said in refusals)


def test_a_direct_server_is_never_taken_to_write_late() -> None:
    """The direct server writes each refusal's line before its answer: nothing of it arrives between calls, so
    it never waits for a call owing no box (a red run's speed), however many refusals it answers."""
    lateness = Lateness()
    said, late = _stderrs(LOGGED, [*REFUSED, *ACCEPTED, *REFUSED] * 3, lateness)
    assert not late and not lateness.known(LOGGED)
    assert said[0] == b"Error processing thought: Invalid thought: must be a string\n"


def test_a_raw_process_reads_a_late_refusal_line_as_its_calls() -> None:
    """The suite's bare processes (lifecycle checks, the pool ABS-10's check watches) read a refusal's line
    with its call through the relay too: it used to arrive while the process waited in the pool, read as
    written between calls (ABS-10 departed through every relay)."""
    lateness = Lateness()
    _learn_relay(lateness)
    said = []
    for argv in (LOGGED, RELAYED):
        target = dataclasses.replace(resolve_target("cmd:" + shlex.join(argv)), lateness=lateness)
        assert tuple(target.command) == tuple(argv)
        with RawServer(target, sandbox={}) as raw:
            raw.initialize()
            assert raw.stderr_now(wait=60.0) == BANNER
            raw.request("tools/call", {"name": "sequentialthinking", "arguments": REFUSED[1]})
            said.append(raw.stderr_now())
    assert said == [b"Error processing thought: Invalid thought: must be a string\n"] * 2


def test_a_command_silent_on_calls_owing_no_box_is_no_longer_waited_for_until_seen_late_again() -> None:
    """The rule every wait for a call owing no box ends with (`Lateness.note_wait`): a relay whose server
    writes nothing on a refusal stops costing a quiet period a call after `SILENT_WAITS` silent waits in a row
    (then `PROBES` probing waits); a line seen late again makes every call wait once more."""
    command = ("relay-of", "a-server-silent-on-refusals")
    lateness = Lateness()
    assert lateness.waits(command) and not lateness.known(command)
    lateness.note_late(command)
    for _ in range(SILENT_WAITS - 1):
        lateness.note_wait(command, arrived=False)
    assert lateness.known(command)
    lateness.note_wait(command, arrived=False)
    assert not lateness.known(command) and lateness.probing(command)
    for _ in range(PROBES):
        lateness.note_wait(command, arrived=False)
    assert not lateness.waits(command)
    lateness.note_wait(command, arrived=True)
    assert lateness.known(command)
    assert not Lateness().known(command), "learning belongs to one run, not to the process"


SILENT: Final = 4
"""A run's `silent_waits` here: the rule's count, cheap enough to reach with real calls."""
QUIET_RELAY = [sys.executable, str(REPO / "tests" / "servers" / "late_stderr.py"), "--delay-ms", "20,50",
               "--", sys.executable, "-m", "reference_server"]
"""The reference (silent on refusals: it writes a box for an accepted thought and nothing for a refusal)
behind the relay."""


def test_a_relay_of_a_server_silent_on_refusals_stops_being_waited_for_on_them() -> None:
    """Counted on a real relay, not on module state: each refusal is waited for while the relay is known late
    and then while probed, `SILENT + PROBES` waits in all, and none after; every refusal's stderr stays empty.
    The raw processes of the suite's lifecycle checks follow the same rule (`RawServer.line_waits`)."""
    calls = SILENT + PROBES + 4
    lateness = Lateness(silent_waits=SILENT)
    with WireDriver(QUIET_RELAY, timeout=60, lateness=lateness) as driver:
        driver.initialize()
        assert driver.stderr_settled(60.0) == BANNER
        # Its late banner teaches it, or not on a slow machine: noted here, so timing cannot change the count.
        lateness.note_late(QUIET_RELAY)
        before = driver.stderr_line_waits
        waits, said = [], []
        for _ in range(calls):
            said.append(driver.call_tool("sequentialthinking", REFUSED[0]).stderr)
            waits.append(driver.stderr_line_waits - before)
    assert said == [b""] * calls
    assert waits == [*range(1, SILENT + PROBES + 1), *[SILENT + PROBES] * (calls - SILENT - PROBES)]
    assert not lateness.chatters(QUIET_RELAY)

    relay = resolve_target("cmd:" + shlex.join(QUIET_RELAY))
    target = dataclasses.replace(relay, lateness=Lateness(silent_waits=SILENT))
    with RawServer(target, sandbox={}) as raw:
        raw.initialize()
        assert raw.stderr_now(wait=60.0) == BANNER
        target.lateness.note_late(QUIET_RELAY)
        assert raw.line_waits == 0
        waits, said = [], []
        for _ in range(calls):
            raw.request("tools/call", {"name": "sequentialthinking", "arguments": REFUSED[0]})
            said.append(raw.stderr_now())
            waits.append(raw.line_waits)
    assert said == [b""] * calls
    assert waits == [*range(1, SILENT + PROBES + 1), *[SILENT + PROBES] * (calls - SILENT - PROBES)]


HEARTBEAT = [sys.executable, str(REPO / "tests" / "servers" / "heartbeat.py"), "5"]
"""The reference with a heartbeat line on stderr every 5 ms, calls or none."""
ROUNDS: Final = 40
"""Refusals sent at most before the heartbeat must have been found a stream: a bound in calls, not time."""


def test_a_direct_server_with_a_heartbeat_stops_being_waited_for_on_refusals() -> None:
    """A heartbeat read after an answer teaches that the command writes late, and each refusal's wait then ran
    its whole second, reading the heartbeat as the refusal's own (a 20 ms heartbeat made a run ~30x slower).
    After `CHATTER_WAITS` waits that run to their limit with stderr never quiet, the command chatters: no
    call owing no box waits again, on the wire driver and on a raw process alike."""
    lateness = Lateness()
    with WireDriver(HEARTBEAT, timeout=60, lateness=lateness) as driver:
        driver.initialize()
        for _ in range(ROUNDS):
            driver.call_tool("sequentialthinking", REFUSED[0])
            if lateness.chatters(HEARTBEAT):
                break
        assert lateness.chatters(HEARTBEAT) and not lateness.waits(HEARTBEAT)
        waits = driver.stderr_line_waits
        assert waits >= CHATTER_WAITS
        for _ in range(5):
            driver.call_tool("sequentialthinking", REFUSED[0])
        assert driver.stderr_line_waits == waits

    target = dataclasses.replace(resolve_target("cmd:" + shlex.join(HEARTBEAT)), lateness=Lateness())
    with RawServer(target, sandbox={}) as raw:
        raw.initialize()
        for _ in range(ROUNDS):
            raw.request("tools/call", {"name": "sequentialthinking", "arguments": REFUSED[0]})
            if target.lateness.chatters(HEARTBEAT):
                break
        assert target.lateness.chatters(HEARTBEAT)
        waits = raw.line_waits
        for _ in range(5):
            raw.request("tools/call", {"name": "sequentialthinking", "arguments": REFUSED[0]})
        assert raw.line_waits == waits
