"""A rule over the history a check met on the shared process is replayed behind one: the fixed opening calls,
then the example's calls, on a fresh process (gate/evidence `behind_opening`). Held-out-multi-13's
strict-relations refuses a plain thought not numbered past the last one; its five departures were seen once
under every seed, since a fresh process given the example alone accepts it and the opening calls number
forward; and its final thought needing more refused was said nowhere, ABS-7's check failing first on the
history rule. Real processes: the reference as the original, and tests/servers/reference_fork.py
`follows-last`, `final-needing-more`."""

from __future__ import annotations

import json
import shlex

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.catalog.view import load_catalog_view
from conformance.core.identity import HarnessIdentity
from conformance.core.jsontypes import json_object
from conformance.gate.evidence import BEHIND_OPENING_SOURCE, Replays, behind_opening, with_evidence
from conformance.report.model import GateEntry, ReplayableCounterexample, Report, RootCause
from conformance.suite.contradiction import Contradiction
from conformance.suite.test_absences import test_needs_more_thoughts_changes_nothing as needs_more_check
from conformance.targets.specs import Target, resolve_target
from tests.servers import command, fork_target, session_on
from tests.verdicts import assembled_report

CATALOG = load_catalog_view()
HARNESS = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")
REFUSAL = "Invalid thoughtNumber: must follow thought"


def _fork() -> Target:
    return fork_target("follows-last")


def _example(number: int, request_id: int = 7) -> list[str]:
    """initialize, initialized, one plain call numbered `number`: accepted by a fresh process of either."""
    hello = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    arguments = {"thought": "a plain step", "thoughtNumber": number, "totalThoughts": 9,
                 "nextThoughtNeeded": True}
    return [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}),
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                        "params": {"name": "sequentialthinking", "arguments": arguments}})]


def _report() -> Report:
    """OBJ-9 the cause, its example one plain call numbered 3; CLM-4 explained, its own example numbered 2."""
    report = assembled_report([])
    sequences = {"OBJ-9": _example(3), "CLM-4": _example(2)}
    records = [
        rv.model_copy(update={
            "verdict": "deviates", "reason": f"refused: {REFUSAL} 23",
            "explained_by": None if rv.id == "OBJ-9" else "rc-1",
            "counterexample": ReplayableCounterexample(test=f"test_{rv.id}", falsifying="", exchange=[],
                                                       replay=sequences[rv.id]),
        }) if rv.id in sequences else rv
        for rv in report.records
    ]
    cause = RootCause(id="rc-1", records=["OBJ-9"], explains=["CLM-4"], summary="OBJ-9 departs",
                      example=_example(3), test="test_OBJ-9")
    return report.model_copy(update={"records": records, "root_causes": [cause]})


def test_a_rule_over_the_history_reproduces_behind_the_opening_calls() -> None:
    out = with_evidence(_report(), _fork(), resolve_target("reference"), timeout=30)
    cause = out.root_causes[0]
    assert cause.evidence is not None and cause.evidence.reproduced, cause.evidence
    assert BEHIND_OPENING_SOURCE in cause.evidence.why, cause.evidence.why
    assert REFUSAL in cause.summary, cause.summary
    own = next(rv.evidence for rv in out.records if rv.id == "CLM-4")
    assert own is not None and own.reproduced and not own.no_difference, own
    assert BEHIND_OPENING_SOURCE in own.why and own.example == behind_opening(_example(2)), own.why
    assert any(REFUSAL in d for d in own.differences), own.differences


@settings(max_examples=30, deadline=None)
@given(number=st.integers(min_value=1, max_value=99), request_id=st.integers(min_value=1, max_value=10**6))
def test_the_example_follows_the_opening_calls_with_ids_of_its_own(number: int, request_id: int) -> None:
    """The example's requests come last, whole but for their ids, after the opening calls without their
    tools/list and without the example's own handshake; every request id is sent once."""
    frames = behind_opening(_example(number, request_id))
    parsed = [json_object(text) or {} for text in frames]
    assert [p.get("method") for p in parsed[:2]] == ["initialize", "notifications/initialized"]
    assert all(p.get("method") != "initialize" for p in parsed[2:])
    assert "tools/list" not in [p.get("method") for p in parsed]
    last = parsed[-1]
    assert last.get("params") == json_object(_example(number, request_id)[-1])["params"]  # type: ignore[index]
    ids = [p["id"] for p in parsed if "id" in p]
    assert len(ids) == len(set(ids))
    assert behind_opening(_example(number)[:2]) == []


def _check_on(mode: str) -> Contradiction | None:
    """ABS-7's check run whole (its explicit examples, then its search) on a fresh process of a fork."""
    with session_on(resolve_target(mode)) as session:
        try:
            needs_more_check(session)
        except Contradiction as raised:
            return raised
    return None


def test_a_rule_over_the_history_is_not_the_flags_departure() -> None:
    """A fork refusing a thought not numbered past the last one refuses the flagged call sent after the same
    plain call: the plain call sent again is refused too, so the flag is not what it refused (ABS-7 holds)."""
    assert _check_on("cmd:" + shlex.join(command("reference_fork", "follows-last"))) is None


def test_a_final_thought_needing_more_refused_is_said_as_the_flag_read() -> None:
    """Behind the same history rule, a final thought with needsMoreThoughts true refused (the flag read) is
    ABS-7's departure in words: the refusal, and the same call accepted without the flag before and after."""
    raised = _check_on("cmd:" + shlex.join(command("reference_fork", "final-needing-more+follows-last")))
    assert raised is not None and raised.record == "ABS-7", raised
    said = str(raised)
    assert ("the call with needsMoreThoughts true is refused, “Invalid needsMoreThoughts: a final thought "
            "cannot need more thoughts” (isError), where the same call without it is accepted before and "
            "after") in said, said


def test_a_new_departures_replay_behind_the_opening_calls_is_not_left_to_the_budget() -> None:
    """With the budget spent on the cause's sequences and CLM-4's own, CLM-4's replay behind the opening
    calls, the one that decides whether its departure is confirmed, is made within the confirmations' slots
    (before: "not reproduced", then seen once)."""
    report = _report()
    clm4 = GateEntry(record="CLM-4", verdict="deviates", expected="holds")
    report = report.model_copy(update={"gate": report.gate.model_copy(update={"unexpected": [clm4]})})
    fork, original = _fork(), resolve_target("reference")
    with Replays(fork, original, 30) as replays:
        replays.cap = 3  # the cause's example and its replay behind the opening calls, then CLM-4's own
        out = with_evidence(report, fork, original, timeout=30, replays=replays)
    own = next(rv.evidence for rv in out.records if rv.id == "CLM-4")
    assert own is not None and own.reproduced and BEHIND_OPENING_SOURCE in own.why, own


def test_a_replay_left_to_the_budget_is_no_finding_of_no_difference() -> None:
    """A departure not new gets no confirmation slot: its replay behind the opening calls left out for the
    budget, it is not said to show no difference on fresh processes (that would call it unreliable)."""
    fork, original = _fork(), resolve_target("reference")
    with Replays(fork, original, 30) as replays:
        replays.cap = 3
        out = with_evidence(_report(), fork, original, timeout=30, replays=replays)
    own = next(rv.evidence for rv in out.records if rv.id == "CLM-4")
    assert own is not None and not own.reproduced and not own.no_difference, own
    assert "replay budget" in own.why, own.why
