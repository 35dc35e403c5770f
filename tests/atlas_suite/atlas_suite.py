"""Stand-in suite for the atlas tests (`--suite tests/atlas_suite/atlas_suite.py`): three records, quickly.

Its stderr check holds on every release by default and deviates where DISABLE_THOUGHT_LOGGING=true is
honoured, so a switch column differs from its release exactly where the README's claim is kept.
"""

from __future__ import annotations

import json

from conformance.catalog.records import evidences
from conformance.core.jsontypes import JSON
from conformance.suite.session import ServerSession


@evidences("CMP-3")
def test_server_name(server: ServerSession) -> None:
    server.probe()
    assert server.server_info.get("name") == "sequential-thinking-server", server.server_info


@evidences("OBJ-6")
def test_each_accepted_thought_reaches_stderr(server: ServerSession) -> None:
    exchange = server.call(
        {"thought": "atlas stand-in", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}
    )
    assert not exchange.is_error, exchange.response
    assert "atlas stand-in" in exchange.stderr.decode("utf-8", errors="replace"), exchange.stderr[:200]


@evidences("RTE-5")
def test_each_accepted_call_adds_one(server: ServerSession) -> None:
    call: dict[str, JSON] = {
        "thought": "p",
        "thoughtNumber": 1,
        "totalThoughts": 1,
        "nextThoughtNeeded": False,
    }
    before = json.loads(server.call(call).text or "null")
    after = json.loads(server.call(call).text or "null")
    assert after["thoughtHistoryLength"] == before["thoughtHistoryLength"] + 1, (before, after)
