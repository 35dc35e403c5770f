"""A key a fork adds only past a long history shows on no short replay; the checks that met it on the shared
process said so in their own words and stood loose (issue 42, held-out-multi-11's notebook: a notice past
100 entries). A loose departure whose line says the answer adds the key the cause says is added goes under
that cause; one adding another key, one with a fresh pair of its own, or a key two causes say, stays loose."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, TestRef
from tests.verdicts import cause, departing

_KEY = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=12)
DUE = "thoughtNumber, totalThoughts, nextThoughtNeeded, branches, thoughtHistoryLength"
NEEDS_STATE = Evidence(reproduced=False, original_spec="npm:0.6.2",
                       why="no difference of this record's on fresh processes: it needs state the shared "
                           "process built up, or timing")


def _adds(key: str, what: str = "the answer") -> str:
    return f"{what} has 1 field(s) more than {DUE}: {key}"


def _lead(rid: str, line: str) -> RecordVerdict:
    failed = TestRef(nodeid=f"t-{rid}", status="failed", examples=1, message=line, contradicted=[rid])
    return departing(rid, f"{rid} contradicted: {line}").model_copy(
        update={"evidence": NEEDS_STATE, "tests": [failed]})


def _placed(cause_keys: list[str], own_key: str, own: Evidence | None) -> str | None:
    """Where a loose departure whose line says the answer adds `own_key` goes."""
    causes = [cause(rid, [], _adds(key)) for rid, key in zip(["OBJ-4", "OBJ-8"], cause_keys, strict=False)]
    leads = [_lead(c.id, _adds(key)) for c, key in zip(causes, cause_keys, strict=True)]
    loose = departing("CLM-5", _adds(own_key, "an answer") + ": the answer { … }").model_copy(
        update={"evidence": own})
    _, records = checked_explanations(causes, [*leads, loose])
    return {rv.id: rv.explained_by for rv in records}["CLM-5"]


@given(key=_KEY, reproduced=st.booleans())
def test_a_key_added_said_by_both_lines_is_one_change(key: str, reproduced: bool) -> None:
    own = (Evidence(reproduced=True, at="on the example's tools/call 1", original_spec="npm:0.6.2",
                    differences=["result.content[0].text → thoughtNumber: 1 on the original, 2 here"])
           if reproduced else NEEDS_STATE)
    assert _placed([key], key, own) == (None if reproduced else "OBJ-4")


@given(key=_KEY, other=_KEY)
def test_another_key_or_two_causes_saying_it_stay_loose(key: str, other: str) -> None:
    if key != other:
        assert _placed([key], other, NEEDS_STATE) is None
    assert _placed([key, key], key, NEEDS_STATE) is None
