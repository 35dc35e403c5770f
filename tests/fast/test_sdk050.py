"""SDK 0.5.0's request handling as the reference models it (reference_server/sdk050.py), on answers captured
from npm:0.6.2 (node 20, zod 3.25.76); tests/e2e/test_reference_differential.py holds it against the
original on a generated corpus."""

from __future__ import annotations

import json

import pytest

from reference_server import sdk050

CAPTURED_CALL_WITHOUT_NAME = (
    '[\n  {\n    "code": "invalid_type",\n    "expected": "string",\n    "received": "undefined",\n'
    '    "path": [\n      "params",\n      "name"\n    ],\n    "message": "Required"\n  }\n]'
)
"""npm:0.6.2's -32603 message for `tools/call` with `params: {}`."""


def test_a_call_without_name_gets_zods_words() -> None:
    issues = sdk050.request_issues("tools/call", {})
    assert sdk050.zod_error_message(issues) == CAPTURED_CALL_WITHOUT_NAME


def test_initialize_lists_every_issue_in_schema_order() -> None:
    capabilities = {"roots": {"listChanged": None}, "experimental": []}
    issues = sdk050.request_issues("initialize", {"capabilities": capabilities, "clientInfo": {"name": 1}})
    assert [(i["path"], i["received"]) for i in issues] == [
        (["params", "protocolVersion"], "undefined"),
        (["params", "capabilities", "experimental"], "array"),
        (["params", "capabilities", "roots", "listChanged"], "null"),
        (["params", "clientInfo", "name"], "number"),
        (["params", "clientInfo", "version"], "undefined"),
    ]
    assert issues[1]["message"] == "Expected object, received array"
    assert sdk050.request_issues("ping", None) == [] and sdk050.request_issues("tools/list", None) == []
    assert sdk050.request_issues("tools/call", None)[0]["path"] == ["params"]


@pytest.mark.parametrize(("frame", "accepted"), [
    ('{"jsonrpc":"2.0","id":1,"method":"ping"}', True),
    ('{"jsonrpc":"2.0","id":1.0,"method":"ping"}', True),
    ('{"jsonrpc":"2.0","id":1.5,"method":"ping"}', False),
    ('{"jsonrpc":"2.0","id":true,"method":"ping"}', False),
    ('{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}', False),
    ('{"jsonrpc":"2.0","id":1,"method":"ping","params":null}', False),
    ('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1.5}}}', False),
    ('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":"t"}}}', True),
    ('{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":[]}}', False),
    ('{"jsonrpc":"2.0","id":4,"result":{}}', True),
    ('{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m","extra":1}}', True),
    ('[{"jsonrpc":"2.0","id":1,"method":"ping"}]', False),
])
def test_the_envelopes_json_rpc_message_schema_takes(frame: str, accepted: bool) -> None:
    assert sdk050.message_accepted(json.loads(frame)) is accepted


def test_ids_come_back_as_the_double_json_parse_made() -> None:
    assert sdk050.js_request_id(2**53 + 1) == 2**53
    assert sdk050.js_request_id(-0.0) == 0 and sdk050.js_request_id("x") == "x"
    assert sdk050.negotiated_version({"protocolVersion": "2024-10-07"}) == "2024-10-07"
    assert sdk050.negotiated_version({"protocolVersion": "2025-06-18"}) == "2024-11-05"
    assert sdk050.cancelled_request({"requestId": 3, "reason": 5}) is None
    assert sdk050.cancelled_request({"requestId": "3"}) == "3"
