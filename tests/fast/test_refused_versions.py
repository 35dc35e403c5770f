"""A server refusing the protocol version a client offers (held-out-multi-15's fork-protocol-upgrade answers
-32602 "Unsupported protocol version" to 2025-11-25) is met at a version it accepts by every client of the
harness, the wire driver's and the official SDK client's, and the refusal is SPEC-1's departure in its own
words, not a host that cannot start (tests/servers/reference_fork.py `versions-only:`, `version-refused:`)."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance.calls.meetings import meet, meets
from conformance.core.eras import AUTO, ERAS, HANDSHAKE_REVISIONS, LATEST_HANDSHAKE, offered_next
from conformance.core.protocol import PROTOCOL_VERSION
from conformance.suite.rawproc import RawServer
from conformance.suite.spec_checks import verdicts
from conformance.suite.test_store import open_session
from tests.servers import fork_target

FORK_ACCEPTS = ("2024-11-05", "2024-10-07", "2025-03-26", "2025-06-18")
"""fork-protocol-upgrade's own list: 2025-11-25, what the official client offers, is refused."""


@given(refused=st.sampled_from(HANDSHAKE_REVISIONS))
def test_the_versions_offered_next_are_every_other_handshake_revision_newest_first(refused: str) -> None:
    following = offered_next(refused)
    assert refused not in following
    assert sorted(following, reverse=True) == list(following)
    assert set(following) | {refused} == set(HANDSHAKE_REVISIONS)


@settings(max_examples=4, deadline=None)
@given(accepted=st.sets(st.sampled_from(HANDSHAKE_REVISIONS), min_size=1, max_size=3),
       offered=st.sampled_from(HANDSHAKE_REVISIONS))
def test_the_wire_client_settles_on_the_newest_accepted_version_and_keeps_the_refusal(
    accepted: set[str], offered: str
) -> None:
    """Whatever versions a server accepts and whichever the client offers first: an accepted offer settles
    at once; a refused one is followed by the newest accepted, the refusal kept in the server's words."""
    target = fork_target("versions-only:" + ",".join(sorted(accepted)))
    with target.wire(timeout=20) as driver:
        result = driver.initialize(offered)
    if offered in accepted:
        assert driver.refused_offer is None and result["protocolVersion"] == offered
        return
    settled = max(accepted)
    assert result["protocolVersion"] == settled == driver.negotiated
    refusal = driver.refused_offer
    assert refusal is not None and (refusal.offered, refusal.accepted) == (offered, settled)
    assert f"Unsupported protocol version: {offered}" in refusal.said()
    assert "-32602" in refusal.said()


def test_a_server_refusing_only_the_originals_version_is_met_at_the_newest() -> None:
    """The other member of the class: a fork speaking only newer revisions refuses 2024-11-05, the version
    every wire driver of the harness offers first."""
    with fork_target("version-refused:2024-11-05").wire(timeout=20) as driver:
        driver.initialize()
        assert driver.negotiated == LATEST_HANDSHAKE
        assert driver.refused_offer is not None and driver.refused_offer.offered == "2024-11-05"
        assert driver.list_tools().result is not None


def test_the_official_client_is_not_stopped_by_a_refused_version() -> None:
    """The suite's host (the `mcp` client, offering 2025-11-25) connects at 2025-06-18 and calls the tool,
    where its start raised "Unsupported protocol version: 2025-11-25" and the CLM checks errored."""
    driver = fork_target("versions-only:" + ",".join(FORK_ACCEPTS)).sdk(timeout=20)
    with driver:
        assert driver.negotiated == "2025-06-18"
        refusal = driver.refused_offer
        assert refusal is not None and refusal.offered == "2025-11-25" and refusal.accepted == "2025-06-18"
        call = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}
        answer = driver.call_tool("sequentialthinking", dict(call))
        assert not answer.is_error


def test_a_meeting_goes_on_and_spec_1_says_the_refusal_once() -> None:
    """The auto client's meeting settles on 2025-06-18 and is read whole; SPEC-1 departs with what was
    offered and what the server said, and no other record departs for a stopped meeting."""
    meeting = meet(fork_target("versions-only:" + ",".join(FORK_ACCEPTS)), AUTO, timeout=20)
    assert meeting.failure is None, meeting.failure
    assert meeting.negotiated == "2025-06-18"
    assert "after refusing 2025-11-25 (-32602)" in meets(meeting)
    found = verdicts(meeting)
    assert found["SPEC-1"] == ("deviates: initialize offering 2025-11-25 was refused, error -32602 "
                               "“Unsupported protocol version: 2025-11-25”, where a server answers a version "
                               "it supports; 2025-06-18, offered next, was accepted")
    assert not any("meeting stopped" in verdict for verdict in found.values()), found


def test_the_original_negotiation_is_no_refusal() -> None:
    """The reference answers every offer with its own version: no refusal, SPEC-1 as before."""
    meeting = meet(fork_target("versions-only:" + ",".join(HANDSHAKE_REVISIONS)), ERAS[3], timeout=20)
    assert meeting.refused_offer is None and meeting.negotiated == "2025-11-25"
    assert verdicts(meeting)["SPEC-1"] == "holds"


@settings(max_examples=4, deadline=None)
@given(accepted=st.sets(st.sampled_from(HANDSHAKE_REVISIONS), min_size=1, max_size=3))
@example(accepted={"2025-06-18", "2025-11-25"})
def test_a_raw_process_is_met_where_the_server_speaks(accepted: set[str]) -> None:
    """The raw processes the suite ends, signals or reads unasked (suite/rawproc.py) offer the original's
    2024-11-05 as the wire driver does, and go on to the newest accepted revision when it is refused: a fork
    speaking only newer revisions showed as an ABS-5 departure (“initialize … error”) instead of SPEC-1's."""
    with RawServer(fork_target("versions-only:" + ",".join(sorted(accepted))), sandbox={}, timeout=20) as raw:
        answer = raw.initialize()
        result = answer.get("result")
        settled = PROTOCOL_VERSION if PROTOCOL_VERSION in accepted else max(accepted)
        assert isinstance(result, dict) and result.get("protocolVersion") == settled, answer
        refusal = raw.refused_offer
        if PROTOCOL_VERSION in accepted:
            assert refusal is None
        else:
            assert refusal is not None and (refusal.offered, refusal.accepted) == (PROTOCOL_VERSION, settled)
        listed = raw.request("tools/list", {})
        assert isinstance(listed.get("result"), dict), listed


def test_a_session_opened_by_hand_is_met_where_the_server_speaks() -> None:
    """ABS-5's check opens two client sessions on one process with its own initialize: each offered the
    original's 2024-11-05 alone, so a server refusing it failed ABS-5 (“a second initialize on one process was
    not answered normally”) where the refusal is SPEC-1's."""
    with fork_target("version-refused:2024-11-05").wire(timeout=20) as driver:
        first, second = open_session(driver, "first-client"), open_session(driver, "second-client")
    assert first.result is not None and second.result is not None, (first.response, second.response)
    assert second.result.get("protocolVersion") == LATEST_HANDSHAKE
