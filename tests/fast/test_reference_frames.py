"""The reference writes each frame as SDK 0.5.0's `JSON.stringify(message)` does: a result's envelope in
`{result, jsonrpc, id}` order (the original's, which pydantic's field order is not), numbers and escapes as
V8 writes them. Against the original itself, byte for byte: tests/e2e/test_reference_differential.py."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference_server.jsvalue import stringify
from reference_server.transport import encode_frame

safe_integers = st.integers(min_value=-(2**53), max_value=2**53)
well_formed = st.text(st.characters(codec="utf-8"), max_size=12)
json_values = st.recursive(
    st.none() | st.booleans() | safe_integers | well_formed,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(well_formed, inner, max_size=3),
    max_leaves=10,
)


@given(json_values)
def test_stringify_writes_what_a_compact_json_dumps_writes(value: Any) -> None:
    """Where Python's encoder and V8's agree (no lone surrogate, integers a double holds exactly), so do we:
    non-ASCII raw, controls as \\b \\f \\n \\r \\t or lowercase \\u00XX, keys in insertion order."""
    assert stringify(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("\ud800", '"\\ud800"'),
        ("\udc00\ud83d\ude00\ud83d", '"\\udc00😀\\ud83d"'),
        ("\x7f\u2028\x1b", '"\x7f\u2028\\u001b"'),
        (2**53 + 1, "9007199254740992"),
        (2**60, "1152921504606847000"),
        (10**21, "1e+21"),
        (1e16, "10000000000000000"),
        (-0.0, "0"),
        (0.1, "0.1"),
        (1e-7, "1e-7"),
        (float("inf"), "null"),
    ],
)
def test_stringify_writes_numbers_and_escapes_as_v8(value: Any, written: str) -> None:
    assert stringify(value) == written


def test_a_result_goes_out_in_the_originals_key_order() -> None:
    response = types.JSONRPCResponse(jsonrpc="2.0", id=7, result={"content": [], "isError": True})
    assert encode_frame(response) == b'{"result":{"content":[],"isError":true},"jsonrpc":"2.0","id":7}\n'


def test_an_error_goes_out_in_the_originals_key_order() -> None:
    error = types.JSONRPCError(
        jsonrpc="2.0", id="s", error=types.ErrorData(code=-32601, message="Method not found")
    )
    written = b'{"jsonrpc":"2.0","id":"s","error":{"code":-32601,"message":"Method not found"}}\n'
    assert encode_frame(error) == written


def test_an_id_beyond_a_double_goes_out_as_v8_writes_it() -> None:
    """JSON.parse made a double of it; JSON.stringify writes that double (an exponent from 1e21)."""
    for literal, written in ((10**21, b"1e+21"), (2**53 + 1, b"9007199254740992")):
        response = types.JSONRPCResponse(jsonrpc="2.0", id=literal, result={})
        assert encode_frame(response) == b'{"result":{},"jsonrpc":"2.0","id":' + written + b"}\n"


def test_a_lone_surrogate_in_an_answer_is_escaped_and_the_rest_written_raw() -> None:
    response = types.JSONRPCResponse(jsonrpc="2.0", id=1, result={"text": "\ud800 é"})
    assert encode_frame(response) == '{"result":{"text":"\\ud800 é"},"jsonrpc":"2.0","id":1}\n'.encode()
