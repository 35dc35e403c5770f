"""Two refusals each re-worded by one edit of the original's words are one change only when the edits are
alike, values aside (gate/evidence.py `_edits_apart`, issue 42). Built on held-out-multi-15's chatty-client
(/work/r20-after-multi15): RTE-3's refusals add “ (got "")”, the value refused; RTE-2's unknown tool adds
“. Available tools: sequentialthinking”, another change, and was listed under RTE-3."""

from __future__ import annotations

import json
from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

CALL: Final = "on the example's tools/call 1"
FIELDS: Final = st.sampled_from(["thought", "thoughtNumber", "totalThoughts", "nextThoughtNeeded", "name"])
VALUES: Final = st.one_of(st.integers(-5, 10**6).map(str), st.sampled_from(
    ['""', '"x"', "'a b'", "1.5", "-2.5", "1e+21", "null", "true", "undefined"]))
TAILS: Final = st.sampled_from([". Available tools: sequentialthinking", " — see the docs", "!"])


def _refusal(words: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"isError": True, "content": [
        {"type": "text", "text": json.dumps({"error": words, "status": "failed"})}]}})


def _reworded(field: str, original: str, added: str) -> Evidence:
    said = (f"the refusal of `{field}` is re-worded: this server adds “{added}” after the original's "
            f"“{original}”")
    return Evidence(reproduced=True, at=CALL, differences=[said], original=_refusal(original),
                    target=_refusal(original + added))


def _record(rid: str, evidence: Evidence, explained_by: str | None = None) -> RecordVerdict:
    message = f"a call is answered isError “{evidence.differences[0]}”"
    test = TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=[], message=message)
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", evidence=evidence, tests=[test],
                         explained_by=explained_by, reason=message)


def _placed(cause_pair: Evidence, own_pair: Evidence) -> str | None:
    cause = RootCause(id="RTE-3", records=["RTE-3"], explains=["RTE-2"], evidence=cause_pair,
                      summary=f"RTE-3 departs — {cause_pair.differences[0]}")
    records = [_record("RTE-3", cause_pair), _record("RTE-2", own_pair, explained_by="RTE-3")]
    _, out = checked_explanations([cause], records)
    return {rv.id: rv.explained_by for rv in out}["RTE-2"]


@given(FIELDS, VALUES, TAILS)
def test_two_edits_in_other_words_are_two_changes(field: str, value: str, tail: str) -> None:
    theirs = _reworded(field, f"Invalid {field}: must be a string", f" (got {value})")
    own = _reworded("name", "Unknown tool: SequentialThinking", tail)
    assert _placed(theirs, own) != "RTE-3"


@given(FIELDS, FIELDS, VALUES, VALUES)
def test_one_edit_with_other_values_is_one_change(field: str, other: str, value: str, again: str) -> None:
    theirs = _reworded(field, f"Invalid {field}: must be a string", f" (got {value})")
    own = _reworded(other, f"Invalid {other}: must be a number", f" (got {again})")
    assert _placed(theirs, own) == "RTE-3"
