"""Stand-in suite for the baseline tests (`--suite tests/cli_suite/signature_suite.py`): the records whose
behaviour changed between npm releases inside a departure (validation, the served tool), in seconds.

Each test checks one record's expectation as the catalog states it: it holds on the original and on the
reference, and deviates on every release whose SDK validates arguments.
"""

from __future__ import annotations

from conformance.catalog.records import evidences
from conformance.suite.session import ServerSession

_VALID = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": True}


@evidences("RTE-1")
def test_one_tool_with_exactly_the_spec_keys(server: ServerSession) -> None:
    listing = server.wire.list_tools().result
    assert listing is not None and list(listing) == ["tools"], listing
    tools = listing["tools"]
    assert isinstance(tools, list) and len(tools) == 1, tools
    assert isinstance(tools[0], dict) and sorted(tools[0]) == ["description", "inputSchema", "name"], tools[0]


@evidences("RTE-3")
def test_wrong_types_get_the_records_messages(server: ServerSession) -> None:
    for field, value, message in (
        ("thoughtNumber", "1", "Invalid thoughtNumber: must be a number"),
        ("nextThoughtNeeded", "false", "Invalid nextThoughtNeeded: must be a boolean"),
    ):
        exchange = server.call({**_VALID, field: value})
        assert exchange.is_error and exchange.text is not None, exchange.response
        assert message in exchange.text, exchange.text
