"""The wire driver against the real TypeScript original 0.6.2: handshake, listing, calls, malformed frames,
raw numbers, and any arguments answered with exactly the stderr each call wrote."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON, OMIT, Omitted
from conformance.drivers.wire import WireDriver
from tests.servers import VALID, assert_gone, ts062


@pytest.fixture(scope="module")
def ts() -> Iterator[WireDriver]:
    target = ts062()
    with WireDriver(target.command, env=target.env, timeout=60) as driver:
        driver.initialize()
        yield driver
    assert_gone(driver.pid)


def test_ts062_initialize_list_and_call(ts: WireDriver) -> None:
    assert ts.initialize_result is not None
    assert ts.initialize_result["serverInfo"] == {"name": "sequential-thinking-server", "version": "0.2.0"}

    listing = ts.list_tools()
    assert listing.result is not None
    tools = listing.result["tools"]
    assert isinstance(tools, list) and isinstance(tools[0], dict)
    assert tools[0]["name"] == "sequentialthinking"
    assert listing.stderr == b""

    exchange = ts.call_tool("sequentialthinking", VALID)
    assert not exchange.is_error
    assert exchange.text is not None
    body = json.loads(exchange.text)
    assert body["thoughtNumber"] == 1 and body["nextThoughtNeeded"] is False
    assert "│ first" in exchange.stderr.decode()
    assert "\x1b[" not in exchange.stderr.decode(), "FORCE_COLOR=0 keeps chalk's colours off"


def test_ts062_missing_arguments_and_null_arguments(ts: WireDriver) -> None:
    missing = ts.call_tool("sequentialthinking")
    assert missing.is_error
    assert missing.text is not None
    assert json.loads(missing.text)["error"] == "Cannot read properties of undefined (reading 'thought')"
    assert missing.stderr == b""

    null = ts.call_tool("sequentialthinking", None)
    assert null.result is None
    assert null.error is not None and null.error["code"] == -32603


def test_ts062_survives_a_malformed_frame_and_takes_raw_numbers(ts: WireDriver) -> None:
    ts.send_raw(b"{this is not json\n")
    assert ts.list_tools().result is not None

    request_id = ts.requests_sent + 100
    frame = (
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sequentialthinking",'
        b'"arguments":{"thought":"big","thoughtNumber":1e400,"totalThoughts":1,"nextThoughtNeeded":true}}}\n'
        % request_id
    )
    exchange = ts.request_raw(frame, request_id=request_id, method="tools/call")
    assert exchange.request == frame
    assert exchange.text is not None
    assert json.loads(exchange.text)["thoughtNumber"] is None  # Infinity serialises as null
    assert "Infinity/Infinity" in exchange.stderr.decode()
    assert ts.list_tools().result is not None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    arguments=st.one_of(
        st.just(OMIT), json_values, st.fixed_dictionaries({}, optional=dict.fromkeys(VALID, json_values))
    )
)
def test_any_arguments_get_an_answer_from_ts062(ts: WireDriver, arguments: JSON | Omitted) -> None:
    exchange = ts.call_tool("sequentialthinking", arguments)
    assert (exchange.result is None) != (exchange.error is None)
    if exchange.result is not None:
        assert isinstance(exchange.text, str)
    assert ts.is_alive()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(thought=st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=200))
def test_stderr_of_each_call_is_exactly_what_it_wrote(ts: WireDriver, thought: str) -> None:
    before = len(ts.stderr_bytes())
    exchange = ts.call_tool("sequentialthinking", {**VALID, "thought": thought})
    assert not exchange.is_error
    assert thought.encode() in exchange.stderr
    assert exchange.stderr == ts.stderr_bytes()[before:]
