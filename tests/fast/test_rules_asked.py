"""A run asks for the rule behind a cause's refusal through one door (gate/rules_asked.py `RulesAsked`), which
keeps each finder's answer for the run: a second cause refusing the same field by the same rule starts no
process and says the same rule (issue 42: the pair-rule finders started a fresh pair per cause). Real
processes: the reference and one-mode forks of it (tests/servers/reference_fork.py), counted by the drivers'
own process counter."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.compare.pair import retested
from conformance.core.differences import refusal
from conformance.core.jsontypes import JSON
from conformance.drivers.process import processes_started
from conformance.gate.evidence import _ruled, pair_headline
from conformance.gate.rules_asked import RulesAsked
from conformance.report.model import Evidence, RootCause
from conformance.targets.specs import Target, resolve_target
from tests.servers import fork_target

REFERENCE = resolve_target("reference")


def _answer(target: Target, arguments: dict[str, JSON]) -> JSON:
    with target.wire(timeout=20) as driver:
        driver.initialize()
        return driver.call_tool("sequentialthinking", arguments).response


def _evidence(theirs: JSON, ours: JSON) -> Evidence:
    return Evidence(reproduced=True, at="on the example's tools/call 2", original_spec="npm:0.6.2",
                    differences=["the original accepts this call and this server refuses it — …"],
                    original=json.dumps(theirs), target=json.dumps(ours))


def _refused(words: str) -> JSON:
    return {"jsonrpc": "2.0", "id": 3, "result": {"isError": True, "content": [
        {"type": "text", "text": json.dumps({"error": words, "status": "failed"}, indent=2)}]}}


ACCEPTED: JSON = {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "{}"}]}}
RATIO = fork_target("runaway-ratio")
RATIO_RULES = RulesAsked(REFERENCE, RATIO, retested(REFERENCE, RATIO, 20), 20.0)
BOTH = fork_target("revise-or-branch")
BOTH_RULES = RulesAsked(REFERENCE, BOTH, retested(REFERENCE, BOTH, 20), 20.0)


def _ratio_call(total: int, factor: int) -> dict[str, JSON]:
    return {"thought": "t", "thoughtNumber": total * factor + 1, "totalThoughts": total,
            "nextThoughtNeeded": True}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(total=st.integers(1, 50), factor=st.integers(10, 40))
def test_a_ratio_is_found_once_a_run(total: int, factor: int) -> None:
    """Every cause whose call breaks `thoughtNumber` > 10 × `totalThoughts`, whatever its numbers, is said as
    that rule; the finder runs for the first alone, the others start no process."""
    call = _ratio_call(total, factor)
    evidence = _evidence(ACCEPTED, _refused(f"thoughtNumber {call['thoughtNumber']} is more than ten times "
                                            f"totalThoughts {total}"))
    first = RATIO_RULES.asked["ratio"] == 0
    started = processes_started()
    said = RATIO_RULES.headline(evidence, call)
    rule = "this server refuses `thoughtNumber` > 10 × `totalThoughts`"
    assert said is not None and said.startswith(rule), said
    assert RATIO_RULES.asked["ratio"] == 1, RATIO_RULES.asked
    if not first:
        assert processes_started() == started, "a ratio already found was re-tested on fresh processes"


def _both_call(revises: int, branch: int, label: str) -> dict[str, JSON]:
    return {"thought": "t", "thoughtNumber": 5, "totalThoughts": 5, "nextThoughtNeeded": True,
            "isRevision": True, "revisesThought": revises, "branchFromThought": branch, "branchId": label}


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(revises=st.integers(1, 4), branch=st.integers(1, 4), label=st.sampled_from(["b", "alt", "x-1"]))
def test_two_fields_both_set_is_found_once_a_run(revises: int, branch: int, label: str) -> None:
    """Causes refusing `isRevision` beside `branchFromThought` in the same words are one question: asked once,
    said alike as the rule two optional fields are not both set."""
    call = _both_call(revises, branch, label)
    ours = _answer(BOTH, call)
    first = BOTH_RULES.asked["both set"] == 0
    started = processes_started()
    said = BOTH_RULES.headline(_evidence(ACCEPTED, ours), call)
    assert said is not None and "`isRevision` and `branchFromThought` both set" in said, said
    assert BOTH_RULES.asked["both set"] == 1, BOTH_RULES.asked
    if not first:
        assert processes_started() == started, "a rule already found was re-tested on fresh processes"



def _frames(call: dict[str, JSON]) -> list[str]:
    hello = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    return [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}),
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": "sequentialthinking", "arguments": call}})]


OWN_PAIRS = [
    ("revise-or-branch", _both_call(2, 1, "zeta"), "`isRevision` and `branchFromThought` both set"),
    ("runaway-ratio", _ratio_call(3, 20), "`thoughtNumber` > 10 × `totalThoughts`"),
    ("early-final-refused",
     {"thought": "t", "thoughtNumber": 2, "totalThoughts": 5, "nextThoughtNeeded": False},
     "`nextThoughtNeeded` false when `thoughtNumber` < `totalThoughts`"),
]


@pytest.mark.parametrize(("mode", "call", "rule"), OWN_PAIRS)
def test_a_cause_opened_on_a_records_own_pair_is_said_as_the_rule(mode: str, call: dict[str, JSON],
                                                                  rule: str) -> None:
    """A cause the grouping opens on a record's own pair (`_cause_of`: headed by the pair's refusal as a
    value, "cannot both revise and branch") is said as the rule behind it, its call read from the frames it
    replayed (before: held-out-multi-12's strict-pointers' RTE-6 kept the value); each of compare's rules
    between two fields alike."""
    fork = BOTH if mode == "revise-or-branch" else fork_target(mode)
    rules = BOTH_RULES if mode == "revise-or-branch" else RulesAsked(
        REFERENCE, fork, retested(REFERENCE, fork, 20), 20.0)
    ours = _answer(fork, call)
    evidence = _evidence(_answer(REFERENCE, call), ours).model_copy(
        update={"at": "on the example's tools/call 1"})
    plain = f"RTE-6 departs — {pair_headline(evidence)}"
    cause = RootCause(id="RTE-6", records=["RTE-6"], explains=[], summary=plain, example=_frames(call))
    said = _ruled(cause.model_copy(update={"evidence": evidence}), rules).summary
    assert said.startswith(f"RTE-6 departs — this server refuses {rule}, which the original accepts "
                           "(re-tested on fresh calls: "), said
    here = refusal(ours)
    assert here is not None and f"— “{here.words[:40]}" in said, said
