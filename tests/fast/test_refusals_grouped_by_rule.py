"""Departures no cause holds are grouped by the refusal their pairs show, not by "refused here" (gate/evidence
`split_off`, issue 42): held-out-multi-12's fork-strict-pointers adds two rules, and RTE-6 (refused as a
revision that branches) opened a cause with CMP-1 (refused as a runaway number), one change's record leading
another change's. Two rules' refusals are two changes; one rule met at other numbers is one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, TestRef

RULES = ["thoughtNumber {n} is more than ten times totalThoughts {m}",
         "Invalid isRevision: a thought cannot both revise and branch",
         "Invalid revisesThought: only allowed when isRevision is true",
         "Rate limit exceeded: {n} calls in {m} seconds"]


def _refused(words: str) -> str:
    return f"the original accepts this call and this server refuses it — “{words}” (isError)"


def _stray(rid: str, words: str, call: int) -> RecordVerdict:
    evidence = Evidence(reproduced=True, at=f"on the example's tools/call {call}",
                        differences=[_refused(words)], original="", target="")
    test = TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=[],
                   message=f"call was refused as invalid: “{words}”")
    return RecordVerdict(id=rid, kind="cmp", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", evidence=evidence, tests=[test])


def _causes(words: list[str]) -> list[tuple[str, ...]]:
    records = [_stray(rid, said, i) for i, (rid, said) in enumerate(zip(["CMP-1", "RTE-6", "OBJ-10", "ABS-6"],
                                                                        words, strict=False), start=1)]
    causes, _ = checked_explanations([], records)
    return sorted(tuple(sorted([*c.records, *c.explains])) for c in causes)


@given(rules=st.lists(st.sampled_from(range(len(RULES))), min_size=4, max_size=4),
       numbers=st.lists(st.integers(1, 10**6), min_size=8, max_size=8))
def test_strays_refused_by_two_rules_open_two_causes_and_one_rule_one(rules: list[int],
                                                                      numbers: list[int]) -> None:
    words = [RULES[r].format(n=numbers[2 * i], m=numbers[2 * i + 1]) for i, r in enumerate(rules)]
    ids = ["CMP-1", "RTE-6", "OBJ-10", "ABS-6"]
    by_rule: dict[int, set[str]] = {}
    for rid, r in zip(ids, rules, strict=True):
        by_rule.setdefault(r, set()).add(rid)
    expected = sorted(tuple(sorted(members)) for members in by_rule.values() if len(members) >= 2)
    assert _causes(words) == expected
