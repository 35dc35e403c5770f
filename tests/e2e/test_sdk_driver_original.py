"""The SDK driver (the official mcp client session over stdio) against the TypeScript original 0.6.2, as a
realistic host drives it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError

from conformance.drivers.sdk import SdkDriver
from tests.servers import VALID, assert_gone, ts062, wait_for_stderr


@pytest.fixture(scope="module")
def host() -> Iterator[SdkDriver]:
    target = ts062()
    with SdkDriver(target.command, env=target.env, timeout=60) as driver:
        yield driver
    assert driver.pid is not None
    assert_gone(driver.pid)  # polled for GONE_WITHIN: a killed process takes a moment to go under load


def test_ts062_through_a_realistic_host(host: SdkDriver, capfd: pytest.CaptureFixture[str]) -> None:
    assert host.initialize_result is not None
    assert host.initialize_result.server_info.name == "sequential-thinking-server"
    assert host.initialize_result.protocol_version == "2024-11-05"

    tools = host.list_tools().tools
    assert [tool.name for tool in tools] == ["sequentialthinking"]
    required = ["thought", "nextThoughtNeeded", "thoughtNumber", "totalThoughts"]
    assert tools[0].input_schema["required"] == required

    result = host.call_tool("sequentialthinking", VALID)
    assert not result.is_error
    assert result.content[0].type == "text"
    assert json.loads(result.content[0].text)["thoughtNumber"] == 1
    assert "│ first" in wait_for_stderr(host, "│ first".encode()).decode()
    assert "first" not in capfd.readouterr().err, "server stderr goes to a buffer, not the terminal"


def test_ts062_call_without_arguments(host: SdkDriver) -> None:
    result = host.call_tool("sequentialthinking", None)
    assert result.is_error
    assert result.content[0].type == "text"
    assert "Cannot read properties of undefined" in result.content[0].text


json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arguments=st.dictionaries(st.sampled_from([*VALID, "branchId", "isRevision", "other"]), json_scalars))
def test_any_argument_object_is_answered_via_the_sdk(host: SdkDriver, arguments: dict[str, Any]) -> None:
    try:
        result = host.call_tool("sequentialthinking", arguments)
    except MCPError as error:  # a JSON-RPC error answer is an answer, not a driver failure
        assert isinstance(error.code, int)
    else:
        assert result.content and result.content[0].type == "text"
