"""SPEC-1, version negotiation judged in full: a real server (tests/servers/negotiates.py) answers each
offered version by a generated table, and the check holds exactly when every answer is a revision the server
answers with when offered it (the offered one when it supports it, another one it supports otherwise)."""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.calls.meetings import OFFERS, Meeting, meet
from conformance.core.eras import AUTO, ERAS, LEGACY, REVISIONS, era_named
from conformance.suite.spec_checks import SpecDeparture, judge, supported_revisions
from conformance.targets.specs import resolve_target
from tests.servers import command

ANSWERS = st.sampled_from([*REVISIONS, "1999-01-01"])
HANDSHAKE_CLIENTS = st.sampled_from([*ERAS[:4], AUTO])


def _server(table: dict[str, str]) -> Any:
    return resolve_target("cmd:" + shlex.join(command("negotiates", json.dumps(table))))


def _holds(table: dict[str, str]) -> bool:
    """The requirement stated apart from the check: every answer is a revision, and offering what was
    answered gets that answer again (it is a revision the server supports)."""
    answer = lambda offer: table.get(offer, table["*"])  # noqa: E731
    return all(answer(o) in REVISIONS and answer(answer(o)) == answer(o) for o in OFFERS)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(OFFERS), ANSWERS, max_size=len(OFFERS)), ANSWERS, HANDSHAKE_CLIENTS)
def test_negotiation_holds_exactly_when_every_answer_is_supported(
    table: dict[str, str], fallback: str, client: Any
) -> None:
    table = {**table, "*": fallback}
    meeting = meet(_server(table), client, timeout=20)
    assert meeting.failure is None, meeting.failure
    if _holds(table):
        judge("SPEC-1", meeting)
    else:
        with pytest.raises(SpecDeparture, match=r"SPEC-1 \(2024-11-05\.\.2025-11-25 basic/lifecycle"):
            judge("SPEC-1", meeting)


def test_one_supported_revision_answered_to_everything_holds() -> None:
    """0.6.2's negotiation: 2024-11-05 to any offer. It supports 2024-11-05 only, so answering it to a
    2025-06-18 client is what the spec asks."""
    meeting = meet(_server({"*": "2024-11-05"}), era_named("2025-06-18"), timeout=20)
    assert meeting.negotiated == "2024-11-05" and supported_revisions(meeting) == ["2024-11-05"]
    judge("SPEC-1", meeting)


def test_a_supported_revision_answered_with_another_departs() -> None:
    """Supports 2025-06-18 (answers it when offered it), yet answered 2024-11-05 to the client's own offer."""
    meeting = Meeting(
        era_named("2025-06-18"),
        negotiated="2024-11-05",
        initialize={"protocolVersion": "2024-11-05"},
        offers={offer: {"result": {"protocolVersion": offer if offer in REVISIONS[:3] else "2025-06-18"}}
                for offer in OFFERS},
    )
    with pytest.raises(SpecDeparture, match="offered 2025-06-18, which it supports"):
        judge("SPEC-1", meeting)


def test_an_unknown_version_answered_with_an_unsupported_one_departs() -> None:
    table = {"2025-06-18": "2025-06-18", "2024-11-05": "2025-06-18", "*": "2024-11-05"}
    with pytest.raises(SpecDeparture, match="answered 2024-11-05, which it does not support"):
        judge("SPEC-1", meet(_server(table), LEGACY, timeout=20))


def test_an_offer_refused_with_an_error_is_not_weighed() -> None:
    offers: dict[str, dict[str, Any]] = {o: {"error": {"code": -32600, "message": "already"}} for o in OFFERS}
    meeting = Meeting(era_named("2025-06-18"), negotiated="2024-11-05",
                      initialize={"protocolVersion": "2024-11-05"}, offers=offers)
    judge("SPEC-1", meeting)
