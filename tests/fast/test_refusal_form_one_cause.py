"""The original's refusals answered in another form are one change wherever a check saw them
(gate/refusal_form.py, issue 42): held-out-multi-13's client-protocol answered every refusal with JSON-RPC
error -32602; LOOP-B's check, which watches fresh processes and kept no call sequence, saw one and opened a
second cause beside the one whose pair showed the form."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.guards import GUARD_REFUSALS
from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

CODES = st.sampled_from([-32602, -32603, -32000, -32001])
GUARDS = st.sampled_from(sorted(GUARD_REFUSALS.values()))


def _record(rid: str, message: str, contradicted: list[str], evidence: Evidence | None = None
            ) -> RecordVerdict:
    test = TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=contradicted,
                   message=message)
    return RecordVerdict(id=rid, kind="loop", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", tests=[test], reason=message, evidence=evidence)


def _placed(code: int, words: str, seen_code: int, seen_words: str) -> tuple[list[list[str]], str | None]:
    first = f"both refuse in the same words, “{words}” as isError on the original, JSON-RPC error {code} here"
    pair = Evidence(reproduced=True, at="on the example's tools/call 1", differences=[first], cause="RTE-8")
    watched = Evidence(reproduced=False, own_failure=True, why="its checks kept no call sequence to replay")
    causes = [RootCause(id="RTE-8", records=["RTE-8"], explains=[], summary=f"RTE-8 departs — {first}",
                        evidence=pair),
              RootCause(id="LOOP-B", records=["LOOP-B"], explains=[], summary="LOOP-B departs — …",
                        evidence=watched)]
    saw = (f"a fresh process answered JSON-RPC error {seen_code}, {json.dumps(seen_words)} without a result, "
           "where the original answers each call of the sequence with one")
    records = [_record("RTE-8", f'RTE-8 contradicted: protocol error instead of an isError result: JSON-RPC '
                       f'error {code}, {json.dumps(words)}', ["RTE-8"], pair),
               _record("LOOP-B", saw, [], watched)]
    kept, out = checked_explanations(causes, records)
    return [c.records for c in kept], {rv.id: rv.explained_by for rv in out}["LOOP-B"]


@given(code=CODES, words=GUARDS, seen=GUARDS)
def test_the_form_seen_without_a_pair_is_the_forms_cause(code: int, words: str, seen: str) -> None:
    assert _placed(code, words, code, seen) == ([["RTE-8"]], "RTE-8")


@given(code=CODES, other=CODES, words=GUARDS)
def test_another_code_or_words_of_its_own_stay_apart(code: int, other: int, words: str) -> None:
    """Another code is another form; words the original never writes are a refusal of the fork's own."""
    if other != code:
        assert _placed(code, words, other, words) == ([["RTE-8"], ["LOOP-B"]], None)
    assert _placed(code, words, code, "Session closed: start a new one") == ([["RTE-8"], ["LOOP-B"]], None)
