"""A message a server sends of its own is one change wherever it lands (gate/evidence.py, issue 43): the
catalogue fork `initialized-sends-list-changed` sends notifications/tools/list_changed on `initialized`;
under load it lands beside the tool list in one record's replay and beside the first call in its cause's.
Before, CMP-1 (its check naming LOOP-A contradicted) became a cause of its own whenever its pair landed at
the tool list and LOOP-A's at a call: the root causes depended on the machine's load."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import UNASKED, Evidence, RecordVerdict, RootCause, TestRef

SENT = '[{"method":"notifications/tools/list_changed","jsonrpc":"2.0"}]'
WHERE = st.sampled_from(["initialize (request 1)", "tools/list (request 2)", "tools/call 1", "tools/call 3"])


def _contradiction(where: str) -> str:
    return (f"LOOP-A contradicted: the server sent a notification of its own, {SENT}, where the response to "
            f"{where} was due; the original never sends one")


def _pair(where: str, sent: str = SENT) -> Evidence:
    return Evidence(reproduced=True, at=f"on the example's {where}",
                    differences=[f"{UNASKED}none on the original, {sent} here"], original="", target="")


def _record(rid: str, evidence: Evidence, where: str, explained_by: str | None) -> RecordVerdict:
    test = TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=["LOOP-A"],
                   message=_contradiction(where))
    return RecordVerdict(id=rid, kind="cmp", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", evidence=evidence, tests=[test],
                         explained_by=explained_by)


def _explained(cause_at: str, record_at: str, sent: str = SENT) -> str | None:
    lead = _pair(cause_at)
    cause = RootCause(id="LOOP-A", records=["LOOP-A"], explains=["CMP-1"],
                      summary=f"LOOP-A departs — {lead.differences[0]}",
                      evidence=lead.model_copy(update={"cause": "LOOP-A"}))
    records = [_record("LOOP-A", lead, cause_at, None),
               _record("CMP-1", _pair(record_at, sent), record_at, "LOOP-A")]
    return {rv.id: rv.explained_by for rv in checked_explanations([cause], records)[1]}["CMP-1"]


@given(cause_at=WHERE, record_at=WHERE)
def test_the_same_unasked_message_is_one_change_wherever_it_lands(cause_at: str, record_at: str) -> None:
    assert _explained(cause_at, record_at) == "LOOP-A"


def test_another_unasked_message_at_another_request_is_not_folded_by_this_rule() -> None:
    """The rule is the message's, not the prefix's: another message at another request class stays apart."""
    other = '[{"method":"notifications/resources/list_changed","jsonrpc":"2.0"}]'
    assert _explained("tools/call 1", "tools/list (request 2)", other) is None
