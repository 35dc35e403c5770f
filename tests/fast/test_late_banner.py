"""A banner a relay forwards after initialize is answered is the start-up's, never the first call's: a run
with `--jobs 4` through a stderr relay of the reference found CMP-5 and LOOP-A departing ("stderr holds
“Sequential Thinking MCP Server running on stdio” beside the box"), because a worker, given no preflight
process, starts its shared process and calls at once, before the relay's banner arrived (issue 43). Real
processes: the reference behind the relay, the banner held back longer than a call takes to be sent; a run's
`Lateness` made fresh per test, as a worker's is.
"""

from __future__ import annotations

import sys

from conformance.core.jsontypes import JSON
from conformance.drivers.lateness import QUIET_STARTS, Lateness
from conformance.drivers.wire import WireDriver
from conformance.suite.rawproc import RawServer
from conformance.targets.specs import resolve_target
from tests.cli import REPO

REFERENCE = [sys.executable, "-m", "reference_server"]
RELAYED = [sys.executable, str(REPO / "tests" / "servers" / "late_stderr.py"), "--delay-ms", "60,90", "--",
           *REFERENCE]
"""The reference behind a relay forwarding its stderr 60 to 90 ms late, in pieces: its banner arrives after
initialize is answered, later than the driver takes to send the next call."""
BANNERLESS = [sys.executable, str(REPO / "tests" / "servers" / "mini.py")]
"""A server writing nothing on stderr at all."""
BANNER = b"Sequential Thinking MCP Server running on stdio\n"
CALL: dict[str, JSON] = {"thought": "plan", "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": True}


def _first_call(command: list[str], lateness: Lateness) -> tuple[bytes, bytes, bytes]:
    """initialize's stderr, the stderr of the call made right after it, and the process's whole stderr."""
    with WireDriver(command, timeout=60, lateness=lateness) as driver:
        opened = driver.request("initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                                               "clientInfo": {"name": "t", "version": "0"}})
        driver.notify("notifications/initialized")
        called = driver.call_tool("sequentialthinking", CALL)
        return opened.stderr, called.stderr, driver.stderr_bytes()


def test_the_relays_banner_is_the_start_ups_not_the_first_calls() -> None:
    """The call made at once after the handshake gets the box the direct reference writes for it, alone; the
    banner, whole, is initialize's stderr, as the original's is, on a run that knew nothing of the relay (a
    slow machine may read the answer after the banner came: then nothing is late, and the same holds)."""
    _, direct, _ = _first_call(REFERENCE, Lateness())
    opened, called, whole = _first_call(RELAYED, Lateness())
    assert called == direct, f"the first call's stderr {called!r}, where the direct reference's is {direct!r}"
    assert opened == BANNER and whole.startswith(BANNER), (opened, whole)


def test_a_raw_process_reads_the_relays_banner_whole_after_its_handshake() -> None:
    """LOOP-A's own check reads stderr once right after the handshake: it finds the banner whole there, and
    the call after it the box alone."""
    target = resolve_target("cmd:" + " ".join(RELAYED))
    with RawServer(target, sandbox={}, timeout=60) as raw:
        raw.initialize()
        assert raw.stderr_now() == BANNER
        raw.request("tools/call", {"name": "sequentialthinking", "arguments": CALL})
        said = raw.stderr_now()
    assert BANNER not in said and said.count("┌".encode()) == 1, said


def test_a_server_writing_no_banner_stops_being_waited_for_at_start_up() -> None:
    """Its first processes wait for a banner that never comes; after `QUIET_STARTS` of them, the run's later
    processes are not waited for (a banner-less fork costs a run two waits, not one a process)."""
    lateness = Lateness()
    for started in range(QUIET_STARTS + 1):
        assert lateness.waits_for_startup(BANNERLESS) == (started < QUIET_STARTS), started
        with WireDriver(BANNERLESS, timeout=60, lateness=lateness) as driver:
            driver.initialize()
            waited = driver.stderr_waited
        assert (waited > 0) == (started < QUIET_STARTS), (started, waited)
    assert not lateness.known(BANNERLESS)


def test_a_late_start_up_makes_every_start_up_waited_for_again() -> None:
    """Quiet starts counted, then one whose stderr came after its answer: start-ups are waited for again."""
    lateness = Lateness()
    for _ in range(QUIET_STARTS):
        lateness.note_startup(RELAYED, arrived=False)
    assert not lateness.waits_for_startup(RELAYED)
    lateness.note_startup(RELAYED, arrived=True)
    assert lateness.waits_for_startup(RELAYED) and lateness.known(RELAYED)
