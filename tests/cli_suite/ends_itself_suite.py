"""Stand-in suite for `run --suite tests/cli_suite/ends_itself_suite.py` against tests/servers/ends_itself.py:
one check whose calls meet two shared processes (the first ends itself after a final thought, a new one
answers the next call), so the plugin's reading of such a failure is seen through the command line."""

from __future__ import annotations

import json
import time

from conformance.catalog.records import evidences
from conformance.drivers.wire import Exchange
from conformance.suite.contradiction import expect
from conformance.suite.session import ServerSession

ENDED_WITHIN = 60.0
"""How long the first process may take to end after its final thought (seconds): a bound, polled."""


def _count(exchange: Exchange) -> int:
    count = json.loads(exchange.text or "{}").get("thoughtHistoryLength")
    assert isinstance(count, int), exchange.response
    return count


@evidences("OBJ-2")
def test_the_count_grows_across_a_final_thought(server: ServerSession) -> None:
    """Each accepted call adds one to the count; the final thought ends this server's process, so the call
    after it reaches a new process and reads the count fall: the process's life, not OBJ-2."""
    before = _count(server.call({"thought": "a", "thoughtNumber": 1, "totalThoughts": 2,
                                 "nextThoughtNeeded": True}))
    driver = server.wire
    server.call({"thought": "b", "thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": False})
    deadline = time.monotonic() + ENDED_WITHIN
    while driver.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    after = _count(server.call({"thought": "c", "thoughtNumber": 3, "totalThoughts": 3,
                                "nextThoughtNeeded": True}))
    expect("OBJ-2", after == before + 2, f"thoughtHistoryLength {before}, then {after} two calls later")
