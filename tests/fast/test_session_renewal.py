"""A shared process that ran out is replaced between checks (`ServerSession.renew_if_spent`, issue 43): held-
out-multi-3's bounded-session refuses every call after 100 thoughts, which left the checks after the bound
nothing but that refusal. Real processes of tests/servers/session_limit.py (it refuses every call once its
history holds LIMIT thoughts; a new process accepts again)."""

from __future__ import annotations

import json
import shlex

from conformance.calls.strategies import Envelope
from conformance.drivers.transcript import Transcript
from conformance.drivers.wire import Exchange
from conformance.suite.session import ServerSession
from conformance.targets.specs import resolve_target
from tests.fast.test_sdk_driver import assert_gone, tagged


def _session(limit: int) -> tuple[ServerSession, str]:
    server, tag = tagged("session_limit", str(limit))
    target = resolve_target("cmd:" + shlex.join(server))
    return ServerSession(target=target, transcript=Transcript(None), timeout=60.0), tag


def _count(exchange: Exchange) -> int:
    assert exchange.result is not None and not exchange.is_error, exchange
    content = exchange.result["content"]
    assert isinstance(content, list) and isinstance(content[0], dict)
    count = json.loads(str(content[0]["text"]))["thoughtHistoryLength"]
    assert isinstance(count, int)
    return count


def test_a_process_that_ran_out_is_replaced_before_the_next_check() -> None:
    session, tag = _session(3)
    try:
        for n in (1, 2, 3):
            assert _count(session.call(Envelope("t", n, 3, True).arguments())) == n
        spent = session.wire.pid
        assert session.call(Envelope("t", 4, 4, True).arguments()).is_error
        assert session.renew_if_spent() is True
        assert session.replaced == 1 and session.restarts == 0
        assert session.wire.pid != spent
        # The new process answered the probe that told it apart: the next call is its second thought.
        assert _count(session.call(Envelope("t", 1, 1, True).arguments())) == 2
        assert session.renew_if_spent() is False  # nothing refused since
    finally:
        session.close()
    assert_gone(tag)


def test_a_process_is_kept_when_nothing_plain_was_refused() -> None:
    session, tag = _session(1)
    try:
        assert _count(session.call(Envelope("t", 1, 1, True).arguments())) == 1
        kept = session.wire.pid
        # Refused, but not a plain call the original accepts (an optional field): no reason to ask.
        assert session.call(Envelope("t", 2, 2, True).arguments(branchId="b", branchFromThought=1)).is_error
        assert session.renew_if_spent() is False
        assert session.wire.pid == kept and session.replaced == 0
    finally:
        session.close()
    assert_gone(tag)


def test_a_refusal_a_new_process_gives_too_is_the_servers() -> None:
    session, tag = _session(0)
    try:
        kept = session.wire.pid
        assert session.call(Envelope("t", 1, 1, True).arguments()).is_error
        assert session.renew_if_spent() is False
        assert session.wire.pid == kept and session.replaced == 0
    finally:
        session.close()
    assert_gone(tag)
