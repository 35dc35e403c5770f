"""A record whose checks saw two of a fork's rules refuse is the change its own replayed pair shows
(gate/evidence.py `_same_change`, issue 42): held-out-multi-13's strict-relations refuses a revisesThought not
below thoughtNumber and a plain thoughtNumber not past the last; BAP-4/a1 saw both, its own pair showed the
revisesThought rule, and it stayed under the forward-numbering cause (RTE-3), the audit's one wrong
"explains"."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

FIELDS = ["thoughtNumber", "totalThoughts", "revisesThought", "branchFromThought", "needsMoreThoughts"]
RULES = st.lists(st.sampled_from(FIELDS), min_size=2, max_size=2, unique=True)
WORDS = ["must follow thought 31", "must be below thoughtNumber", "cannot need more"]
TAILS = st.lists(st.sampled_from(WORDS), min_size=2, max_size=2, unique=True)
"""Each rule's own words: one rule refusing two fields in the same words is one change (`_rule_shown`)."""


def _added(field: str, tail: str) -> str:
    return (f"the original accepts this call and this server refuses it naming `{field}` — “Invalid {field}: "
            f"{tail} and so a little longer than sixty characters” (isError)")


def _crashed(field: str, tail: str) -> str:
    """The other rule's cause as the original crashes on its call (an object where a number was due)."""
    return ("both refuse this call, in other words: “Cannot convert object to primitive value” on the "
            f"original (a runtime error), “Invalid {field}: {tail} and so a little longer than sixty "
            "characters” here")


def _saw(rid: str, field: str, tail: str) -> str:
    body = json.dumps({"error": f"Invalid {field}: {tail}", "status": "failed"})
    return f"{rid} contradicted: call was refused as invalid: isError {body[:1]} {body[1:]}"


def _record(rid: str, explained_by: str | None, own: str, seen: list[tuple[str, str]]) -> RecordVerdict:
    tests = [TestRef(nodeid=f"t::{rid}{i}", status="failed", examples=1, contradicted=[named], message=m)
             for i, (named, m) in enumerate(seen)]
    evidence = Evidence(reproduced=True, at="on the example's tools/call 2", differences=[own])
    return RecordVerdict(id=rid, kind="bap", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", explained_by=explained_by, evidence=evidence, tests=tests)


def _cause(rid: str, first: str) -> RootCause:
    evidence = Evidence(reproduced=True, at="on the example's tools/call 2", differences=[first], cause=rid)
    return RootCause(id=rid, records=[rid], explains=[], summary=f"{rid} departs — {first}",
                     evidence=evidence)


@given(rules=RULES, tails=TAILS, first=st.booleans())
def test_its_own_pair_decides_between_two_rules_it_saw(rules: list[str], tails: list[str], first: bool
                                                        ) -> None:
    """BAP-4/a1 saw both rules, its pair shows the other; OBJ-10 saw only the other (as in the run): BAP-4/a1
    goes under the other rule's cause, neither stays with RTE-3 (before: BAP-4/a1 stayed under RTE-3's)."""
    one, other = rules
    tail, also = tails
    causes = [_cause("RTE-3", _added(one, tail)).model_copy(update={"explains": ["BAP-4/a1", "OBJ-10"]}),
              _cause("RTE-8/a1", _crashed(other, also))]
    seen = [("RTE-3", _saw("RTE-3", other, also)), ("RTE-3", _saw("RTE-3", one, tail))]
    records = [_record("RTE-3", None, _added(one, tail), [("RTE-3", _saw("RTE-3", one, tail))]),
               _record("RTE-8/a1", None, _crashed(other, also),
                       [("RTE-8/a1", _saw("RTE-8/a1", other, also))]),
               _record("BAP-4/a1", "RTE-3", _added(other, also), seen if first else seen[::-1]),
               _record("OBJ-10", "RTE-3", _added(other, also), seen[:1])]
    kept, out = checked_explanations(causes, records)
    placed = {rv.id: rv.explained_by for rv in out}
    assert placed["BAP-4/a1"] == "RTE-8/a1", placed
    rte3 = next(c for c in kept if c.id == "RTE-3")
    assert not {"BAP-4/a1", "OBJ-10"} & {*rte3.records, *rte3.explains}


@given(rules=RULES, tails=TAILS)
def test_a_record_whose_pair_shows_the_causes_rule_stays(rules: list[str], tails: list[str]) -> None:
    one, other = rules
    tail, also = tails
    causes = [_cause("RTE-3", _added(one, tail)).model_copy(update={"explains": ["BAP-4/a1"]}),
              _cause("RTE-8/a1", _crashed(other, also))]
    seen = [("RTE-3", _saw("RTE-3", other, also)), ("RTE-3", _saw("RTE-3", one, tail))]
    records = [_record("RTE-3", None, _added(one, tail), [("RTE-3", _saw("RTE-3", one, tail))]),
               _record("RTE-8/a1", None, _crashed(other, also),
                       [("RTE-8/a1", _saw("RTE-8/a1", other, also))]),
               _record("BAP-4/a1", "RTE-3", _added(one, tail), seen)]
    _, out = checked_explanations(causes, records)
    assert {rv.id: rv.explained_by for rv in out}["BAP-4/a1"] == "RTE-3"
