"""A run's cause whose pair shows this server refusing a numbered field by a relation to another field says
that rule and the calls that show it (gate/rules_said.py over core/relation.py, the finder `compare` uses:
issue 42). Held-out-multi-13's strict-relations refuses a revisesThought not below thoughtNumber; its run said
"both refuse this call, in other words: “Cannot convert object to primitive value” … “Invalid revisesThought:
must…”". Against the reference and one-mode forks of it (tests/servers/reference_fork.py), real processes."""

from __future__ import annotations

import json

import pytest

from conformance.compare.pair import retested
from conformance.compare.relations import find_relation
from conformance.core.relation import Relation
from conformance.gate.rules_said import relation_refused, rule_headline
from conformance.report.model import Evidence
from conformance.targets.specs import resolve_target
from tests.servers import fork_target

REFERENCE = resolve_target("reference")
ACCEPTED = {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "{}"}]}}
CRASH_TEXT = json.dumps({"error": "Cannot convert object to primitive value", "status": "failed"})
CRASHED = {"jsonrpc": "2.0", "id": 3,
           "result": {"isError": True, "content": [{"type": "text", "text": CRASH_TEXT}]}}


def _refused(words: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": 3, "result": {"isError": True, "content": [
        {"type": "text", "text": json.dumps({"error": words, "status": "failed"}, indent=2)}]}}


def _pair(original: dict[str, object], words: str) -> Evidence:
    return Evidence(reproduced=True, at="on the example's tools/call 2", original_spec="npm:0.6.2",
                    differences=["the original accepts this call and this server refuses it — …"],
                    original=json.dumps(original), target=json.dumps(_refused(words)))


RULES = [
    ("revises-below", "Invalid revisesThought: must be a thought number below thoughtNumber",
     "`revisesThought` ≥ `thoughtNumber`", "3 with 3 refused, 2 with 3 accepted"),
    ("branch-not-ahead", "Invalid branchFromThought: cannot branch from a later thought",
     "`branchFromThought` > `thoughtNumber`", "4 with 3 refused, 2 with 3 accepted"),
    ("total-not-below", "Invalid totalThoughts: must be at least thoughtNumber",
     "`totalThoughts` < `thoughtNumber`", "2 with 3 refused, 3 with 3 accepted"),
]


@pytest.mark.parametrize(("mode", "words", "rule", "shown"), RULES)
def test_a_relation_is_said_as_the_rule(mode: str, words: str, rule: str, shown: str) -> None:
    """Whether the original accepted the call or crashed on it, the headline names the rule with the calls
    that show it, then this server's words; compare's finder finds the same relation."""
    fork = fork_target(mode)
    found: dict[str, Relation | None] = {}  # one re-test per field, as a run keeps them
    for original in (ACCEPTED, CRASHED):
        evidence = _pair(original, words)
        refused = relation_refused(evidence, retested(REFERENCE, fork, 10), found)
        assert refused is not None and refused.relation.rule == rule, refused
        headline = rule_headline(refused, evidence)
        assert headline.startswith(f"this server refuses {rule}, which the original accepts"), headline
        assert shown in headline and words[:30] in headline and "(isError)" in headline, headline
    relation = refused.relation
    assert find_relation(REFERENCE, fork, relation.field, "b", 10) == relation


def test_another_rule_of_the_same_field_is_not_said_as_this_one() -> None:
    """A fork refusing thoughtNumber by two rules (numbers only forward, and ≤ revisesThought through the
    revision rule): a pair refused in the forward rule's words is not said as the relation the re-test finds,
    whose refusals read otherwise (held-out-multi-13's strict-relations: RTE-3's cause)."""
    found: dict[str, Relation | None] = {}
    evidence = _pair(ACCEPTED, "Invalid thoughtNumber: must follow thought 31")
    assert relation_refused(evidence, retested(REFERENCE, fork_target("revises-below"), 10), found) is None
    assert found["thoughtNumber"] is not None and found["thoughtNumber"].other == "revisesThought"


def test_a_refusal_the_original_makes_alike_is_no_rule() -> None:
    words = "Invalid thoughtNumber: must be a number"
    evidence = _pair(ACCEPTED, words).model_copy(update={"original": json.dumps(_refused(words))})
    assert relation_refused(evidence, retested(REFERENCE, fork_target("revises-below"), 10), {}) is None
