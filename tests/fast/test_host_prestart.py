"""The realistic host started ahead (`ServerSession.prestart_host`): the check that uses it gets that host, a
start that failed is raised to that check, and a session that ends first, even mid-handshake, leaves no
process behind. Each test runs real server processes."""

from __future__ import annotations

import shlex
import time

import pytest

from conformance.drivers.errors import ServerExited
from conformance.drivers.transcript import Transcript
from conformance.suite.session import ServerSession
from conformance.targets.specs import resolve_target
from tests.fast.test_sdk_driver import assert_gone, tagged
from tests.servers import OVERRUN, PATIENT


def _session(name: str, *args: str) -> tuple[ServerSession, str]:
    server, tag = tagged(name, *args)
    target = resolve_target("cmd:" + shlex.join(server))
    return ServerSession(target=target, transcript=Transcript(None), timeout=PATIENT), tag


def test_the_host_a_check_gets_is_the_one_started_ahead() -> None:
    session, tag = _session("mini")
    try:
        session.prestart_host()
        starting = session._host_start
        assert starting is not None
        with session.host() as host:
            assert host is starting.driver
            assert host.initialize_result is not None
            assert [tool.name for tool in host.list_tools().tools]
        assert session._host_start is None
    finally:
        session.close()
    assert_gone(tag, starting.driver.pid)


def test_a_host_that_failed_to_start_ahead_fails_the_check_that_uses_it() -> None:
    session, tag = _session("exit_at_start")
    try:
        session.prestart_host()
        with pytest.raises(ServerExited, match="exited"), session.host():
            pass
    finally:
        session.close()
    assert_gone(tag)


def test_a_session_closed_mid_handshake_ends_the_host_at_once() -> None:
    session, tag = _session("never_answers")
    session.prestart_host()
    starting = session._host_start
    assert starting is not None
    deadline = time.monotonic() + OVERRUN
    while starting.driver.pid is None and time.monotonic() < deadline:
        time.sleep(0.01)
    began = time.monotonic()
    session.close()
    assert time.monotonic() - began < PATIENT / 2, "the close waited out the handshake's timeout"
    assert_gone(tag, starting.driver.pid)


def test_a_host_started_ahead_and_never_used_is_closed_with_the_session() -> None:
    session, tag = _session("mini")
    session.prestart_host()
    starting = session._host_start
    assert starting is not None
    starting.result()
    session.close()
    assert_gone(tag, starting.driver.pid)
