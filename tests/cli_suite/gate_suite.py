"""Stand-in suite for `run --suite tests/cli_suite/gate_suite.py`: the gate, writers and xdist, quickly.

Each test checks one record's expectation as the catalog states it, so it holds on the reference and
the original and deviates on the hostile fake server.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.records import evidences
from conformance.suite.session import ServerSession


@evidences("CMP-3")
def test_server_name(server: ServerSession) -> None:
    server.probe()
    assert server.server_info.get("name") == "sequential-thinking-server", server.server_info


@evidences("RTE-2")
def test_unknown_tool_is_an_error_result(server: ServerSession) -> None:
    exchange = server.call({"thought": "x"}, name="no_such_tool")
    assert exchange.is_error, exchange.response
    assert exchange.text == "Unknown tool: no_such_tool", exchange.text


@evidences("RTE-5")
@given(thought=st.text(min_size=1, max_size=20))
def test_each_accepted_call_adds_one(server: ServerSession, thought: str) -> None:
    before = json.loads(
        server.call({"thought": "p", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}).text
        or "null"
    )
    after = json.loads(
        server.call(
            {"thought": thought, "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}
        ).text
        or "null"
    )
    assert after["thoughtHistoryLength"] == before["thoughtHistoryLength"] + 1, (before, after)
