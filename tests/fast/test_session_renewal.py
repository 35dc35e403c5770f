"""A shared process that ran out is replaced between checks (`ServerSession.renew_if_spent`, issue 43): held-
out-multi-3's bounded-session refuses every call after 100 thoughts, which left the checks after the bound
nothing but that refusal. Real processes of tests/servers/session_limit.py (it refuses every call once its
history holds LIMIT thoughts; a new process accepts again)."""

from __future__ import annotations

from conformance.calls.strategies import Envelope
from conformance.suite.session import ServerSession
from tests.fast.test_sdk_driver import assert_gone
from tests.sessions import history_length, tagged_session


def _session(limit: int) -> tuple[ServerSession, str]:
    return tagged_session("session_limit", str(limit), timeout=60.0)


def test_a_process_that_ran_out_is_replaced_before_the_next_check() -> None:
    session, tag = _session(3)
    try:
        for n in (1, 2, 3):
            assert history_length(session.call(Envelope("t", n, 3, True).arguments())) == n
        spent = session.wire.pid
        assert session.call(Envelope("t", 4, 4, True).arguments()).is_error
        assert session.renew_if_spent() is True
        assert session.replaced == 1 and session.restarts == 0
        assert session.wire.pid != spent
        # The new process answered the probe that told it apart: the next call is its second thought.
        assert history_length(session.call(Envelope("t", 1, 1, True).arguments())) == 2
        assert session.renew_if_spent() is False  # nothing refused since
    finally:
        session.close()
    assert_gone(tag)


def test_a_process_is_kept_when_nothing_plain_was_refused() -> None:
    session, tag = _session(1)
    try:
        assert history_length(session.call(Envelope("t", 1, 1, True).arguments())) == 1
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
