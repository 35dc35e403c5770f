"""A cause whose pair shows this server refusing a call the original accepts, by one of compare's rules
between two fields (compare/two_fields.py: a ratio to another numbered field, a value refused only in an
order of two numbered fields, two optional fields not both set), is said as that rule in compare's words,
with the calls that show it (gate/rules_said.py `pair_rule_refused`, issue 42), not as the one call its
example sent. Real processes: the reference and one-mode forks of it (tests/servers/reference_fork.py)."""

from __future__ import annotations

import json

import pytest

from conformance.compare.two_fields import find_both_set, find_conditional, find_ratio
from conformance.core.differences import refusal
from conformance.core.jsontypes import JSON
from conformance.gate.evidence import with_evidence
from conformance.gate.rules_said import pair_rule_headline, pair_rule_refused
from conformance.report.model import Evidence, ReplayableCounterexample, RootCause
from conformance.targets.specs import Target, resolve_target
from tests.servers import fork_target
from tests.verdicts import assembled_report

REFERENCE = resolve_target("reference")


def _answer(target: Target, arguments: dict[str, JSON]) -> dict[str, JSON]:
    with target.wire(timeout=20) as driver:
        driver.initialize()
        return driver.call_tool("sequentialthinking", arguments).response


CASES = [
    ("runaway-ratio", {"thought": "t", "thoughtNumber": 99, "totalThoughts": 9, "nextThoughtNeeded": True},
     "`thoughtNumber` > 10 × `totalThoughts`"),
    ("early-final-refused",
     {"thought": "t", "thoughtNumber": 2, "totalThoughts": 5, "nextThoughtNeeded": False},
     "`nextThoughtNeeded` false when `thoughtNumber` < `totalThoughts`"),
    ("revise-or-branch", {"thought": "t", "thoughtNumber": 3, "totalThoughts": 5, "nextThoughtNeeded": True,
                          "isRevision": True, "revisesThought": 1, "branchFromThought": 2, "branchId": "b"},
     "both set"),
]


@pytest.mark.parametrize(("mode", "call", "rule"), CASES)
def test_the_pair_is_said_as_compares_rule(mode: str, call: dict[str, JSON], rule: str) -> None:
    fork = fork_target(mode)
    theirs, ours = _answer(REFERENCE, call), _answer(fork, call)
    here = refusal(ours)
    assert refusal(theirs) is None and here is not None, (theirs, ours)
    evidence = Evidence(reproduced=True, at="on the example's tools/call 2", original_spec="npm:0.6.2",
                        differences=["the original accepts this call and this server refuses it — …"],
                        original=json.dumps(theirs), target=json.dumps(ours))
    found = pair_rule_refused(evidence, call, REFERENCE, fork, 20.0)
    assert found is not None, ours
    said = pair_rule_headline(found, evidence)
    assert said.startswith("this server refuses ") and rule in said, said
    assert f"— “{here.words[:40]}" in said, said
    assert "which the original accepts (re-tested on fresh calls: " in said, said
    # compare's own finder, asked alike, names the same rule in the same words
    field = here.field if here.field in call else "thoughtNumber"
    again = (find_ratio(REFERENCE, fork, field, "b", call, 20.0)
             or find_conditional(REFERENCE, fork, field, "b", call, here.words, 20.0)
             or find_both_set(REFERENCE, fork, field, "b", call, here.words, 20.0))
    assert again is not None and again.rule == found[0].rule


def test_no_rule_is_claimed_where_the_server_accepts_the_call() -> None:
    call: dict[str, JSON] = {"thought": "t", "thoughtNumber": 99, "totalThoughts": 9,
                             "nextThoughtNeeded": True}
    answer = _answer(REFERENCE, call)
    evidence = Evidence(reproduced=True, at="on the example's tools/call 2", original_spec="npm:0.6.2",
                        differences=["…"], original=json.dumps(answer), target=json.dumps(answer))
    assert pair_rule_refused(evidence, call, REFERENCE, fork_target("runaway-ratio"), 20.0) is None


def test_a_runs_cause_is_headed_by_the_rule() -> None:
    """Through the run's evidence (gate/evidence `with_evidence`): the cause replayed on fresh processes, its
    headline the rule, not the value its example sent (before: "… this server refuses it — “thoughtNumber 99
    is more than ten times totalThoughts 9” (isError)")."""
    report = assembled_report([])
    hello = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    frames = [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}),
              json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
              json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "sequentialthinking", "arguments": CASES[0][1]}})]
    records = [rv.model_copy(update={
        "verdict": "deviates", "reason": "refused",
        "counterexample": ReplayableCounterexample(test="test_RTE-3", falsifying="", exchange=[],
                                                   replay=frames),
    }) if rv.id == "RTE-3" else rv for rv in report.records]
    cause = RootCause(id="rc-1", records=["RTE-3"], explains=[], summary="RTE-3 departs", example=frames,
                      test="test_RTE-3")
    out = with_evidence(report.model_copy(update={"records": records, "root_causes": [cause]}),
                        fork_target("runaway-ratio"), REFERENCE, timeout=30)
    said = out.root_causes[0].summary
    assert said.startswith("RTE-3 departs — this server refuses `thoughtNumber` > 10 × `totalThoughts`, "
                           "which the original accepts (re-tested on fresh calls: "), said


def test_a_rule_is_not_said_for_a_call_that_does_not_break_it() -> None:
    """The ratio found for the field is no rule of a refusal whose call keeps it (9 of 9 is not above ten
    times 9): that refusal is another rule's, said by its own pair."""
    call = {"thought": "t", "thoughtNumber": 9, "totalThoughts": 9, "nextThoughtNeeded": True}
    evidence = _refused_pair("Invalid thoughtNumber: must be odd")
    assert pair_rule_refused(evidence, call, REFERENCE, fork_target("runaway-ratio"), 20.0) is None


def _refused_pair(words: str) -> Evidence:
    accepted = {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "{}"}]}}
    refused = {"jsonrpc": "2.0", "id": 3, "result": {"isError": True, "content": [
        {"type": "text", "text": json.dumps({"error": words, "status": "failed"}, indent=2)}]}}
    return Evidence(reproduced=True, at="on the example's tools/call 2", original_spec="npm:0.6.2",
                    differences=["the original accepts this call and this server refuses it — …"],
                    original=json.dumps(accepted), target=json.dumps(refused))


def test_a_refusal_naming_a_field_the_call_lacks_tries_only_the_fields_it_names() -> None:
    """A refusal naming `branchFromThought`, which its call does not send, is no ratio of the numbers the call
    does send: no finder is asked for them (before: one fresh pair per numbered field of the call)."""
    call: dict[str, JSON] = {"thought": "t", "thoughtNumber": 99, "totalThoughts": 9,
                             "nextThoughtNeeded": True, "branchId": "b"}
    asked: list[str] = []

    def find(kind: str, field: str, arguments: dict[str, JSON], words: str) -> None:
        asked.append(f"{kind} {field}")

    evidence = _refused_pair("branchId needs branchFromThought")
    assert pair_rule_refused(evidence, call, REFERENCE, fork_target("runaway-ratio"), 20.0, find) is None
    assert asked == [], asked
