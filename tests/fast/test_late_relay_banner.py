"""A banner a relay forwards long after the first answer (0.8 s here; the start-up wait gives it 0.3 s when
the run has learned no lag) is still the start-up's: not the first call's stderr, not a render departure. A
wrapper relaying stderr (`docker run -i`, a shell script, an async logger) may start forwarding late, and
what the server writes next comes behind the banner (issue 43, left by round 15). Real processes: the
reference behind `tests/servers/late_stderr.py --banner-ms 800`; what is asserted is each call's stderr,
the same as the direct reference's, whatever the machine's speed (a banner that happens to arrive within the
start-up wait is the start-up's as before)."""

from __future__ import annotations

import sys

import pytest

from conformance.core.jsontypes import JSON
from conformance.drivers.late_banner import startup_part
from conformance.drivers.lateness import Lateness
from conformance.drivers.wire import WireDriver
from conformance.suite.rawproc import RawServer
from conformance.targets.specs import resolve_target
from tests.cli import REPO

REFERENCE = [sys.executable, "-m", "reference_server"]
LATE = [sys.executable, str(REPO / "tests" / "servers" / "late_stderr.py"), "--banner-ms", "800", "--",
        *REFERENCE]
"""The reference behind a relay holding its banner until 0.8 s after the first answer, and all its stderr
after it behind it (5 to 30 ms late besides, in pieces)."""
BANNER = b"Sequential Thinking MCP Server running on stdio\n"
CALL: dict[str, JSON] = {"thought": "plan", "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": True}
REFUSED: dict[str, JSON] = {"thought": "", "thoughtNumber": 1}
INIT: dict[str, JSON] = {"protocolVersion": "2024-11-05", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "0"}}


def _calls(command: list[str], lateness: Lateness, first: list[dict[str, JSON]], *, settled: bool = False,
           ) -> tuple[list[bytes], bytes]:
    """Each call's stderr, `first` then a box-owing call, made at once after the handshake (`settled`: the
    banner read first, whole, as compare and the signatures read it), and the process's whole stderr."""
    with WireDriver(command, timeout=60, lateness=lateness) as driver:
        driver.request("initialize", INIT)
        driver.notify("notifications/initialized")
        if settled:
            assert driver.stderr_settled(60.0) == BANNER
        said = [bytes(driver.call_tool("sequentialthinking", arguments).stderr)
                for arguments in [*first, CALL]]
        return said, driver.stderr_bytes()


@pytest.fixture(scope="module")
def expected() -> list[bytes]:
    """The direct reference's stderr for `CALL`, `REFUSED`, `CALL` on one process (read once)."""
    return _calls(REFERENCE, Lateness(), [CALL, REFUSED])[0]


def test_a_banner_relayed_late_is_learned_with_its_lag(expected: list[bytes]) -> None:
    """A run's first process of the relay reads the banner whole (compare's and the signatures' read); the
    next process calls at once: its banner, late again, is not its first call's stderr (before: the start-up
    waited 0.3 s, learned no lag from that read, and the first call read "" for its box)."""
    lateness = Lateness()
    _calls(LATE, lateness, [], settled=True)
    said, whole = _calls(LATE, lateness, [CALL, REFUSED])
    assert said == expected, f"{said!r}, where the direct reference's calls read {expected!r}"
    assert whole.startswith(BANNER), whole[:200]
    assert lateness.banner(LATE) == BANNER and lateness.lag(LATE) > 0


def test_a_banner_known_to_the_run_is_waited_for_past_the_start_up_wait(expected: list[bytes]) -> None:
    """The run saw the command's banner (here: told so) but no lag: the start-up wait ends before it; the
    first call, owing a box, waits for the banner with the box behind it; a first call owing none reads
    nothing, and the banner is left out of the call after it wherever it lands."""
    for first in ([CALL, REFUSED], [REFUSED]):
        lateness = Lateness()
        lateness.note_banner(LATE, BANNER)
        said, whole = _calls(LATE, lateness, first)
        assert said == expected[-len(said):], f"{said!r}, where the direct reference's read {expected!r}"
        assert whole.startswith(BANNER), whole[:200]


def test_a_raw_process_leaves_a_late_banner_out_of_the_calls_stderr() -> None:
    """LOOP-A and CMP-5 read a raw process's stderr after its calls: the banner relayed late (the run saw the
    command's banner before) is in what it saw from the start, not beside the first call's box."""
    target = resolve_target("cmd:" + " ".join(LATE))
    target.lateness.note_banner(target.command, BANNER)
    with RawServer(target, sandbox={}, timeout=60) as raw:
        raw.initialize()
        before = raw.stderr_now()
        raw.request("tools/call", {"name": "sequentialthinking", "arguments": CALL})
        said = raw.stderr_now()
        assert bytes(raw.seen).startswith(BANNER), bytes(raw.seen)[:200]
    assert before in (b"", BANNER), before
    assert BANNER not in said and said.count("┌".encode()) == 1, said


def test_the_banners_part_is_its_lines_before_the_box() -> None:
    """Learned, the banner is taken whole; not learned, only from a box-owing call's late stderr, its lines
    before the box's (the blank line the original's box begins with left to the box); a call owing no box
    gives nothing up unless the banner is known."""
    box = "\n┌──┐\n│ x│\n└──┘\n".encode()
    assert startup_part(BANNER + box, None, boxed=True) == BANNER
    assert startup_part(BANNER + box, BANNER, boxed=False) == BANNER
    assert startup_part(BANNER + b"error\n", None, boxed=False) == b""
    assert startup_part(box, None, boxed=True) == b""
    assert startup_part(b"partial line", None, boxed=True) == b""
