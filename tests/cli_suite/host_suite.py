"""Stand-in suite for `run --suite tests/cli_suite/host_suite.py`: checks through the official client (the
SDK driver) only, as OBJ-4/a2's episode check is, so what a run keeps of such a check's calls (issue 43:
`drivers/sdk_sent.py`) is seen through the command line against tests/servers/reference_fork.py
`blank-refused`, which refuses a thought that is blank once trimmed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.strategies import Envelope
from conformance.catalog.records import evidences
from conformance.drivers.sdk import SdkDriver
from conformance.suite.answers import host_status
from conformance.suite.session import ServerSession

THOUGHTS = ("plan the proof", "check the base case", "   ", "\t\r\n", "conclude")
"""Drawn thoughts: two of five blank once trimmed, which the original accepts (any non-empty string)."""


@pytest.fixture(scope="session")
def host(server: ServerSession) -> Iterator[SdkDriver]:
    """The built-in suite's realistic host (conformance/suite/conftest.py), which a stand-in suite lacks."""
    with server.host() as driver:
        yield driver


@evidences("OBJ-4/a2")
@given(thoughts=st.lists(st.sampled_from(THOUGHTS), min_size=1, max_size=4))
def test_an_episode_through_the_official_client(host: SdkDriver, thoughts: list[str]) -> None:
    """One episode of drawn thoughts, each answered with a status by a real host (the search draws a blank
    one early: the fork refuses it, the original does not)."""
    for number, thought in enumerate(thoughts, start=1):
        host_status(host, Envelope(thought, number, len(thoughts), number < len(thoughts)).arguments())


@evidences("RTE-8/a1")
def test_one_call_through_the_official_client(host: SdkDriver) -> None:
    """No search: a fixed call the fork refuses, sent after one it accepts."""
    host_status(host, Envelope("a first thought", 1, 2, True).arguments())
    host_status(host, Envelope("\u00a0\u3000", 2, 2, False).arguments())
