"""A departure whose own pair shows another cause's change, not the cause a check of it named, is that other
cause's (gate/evidence.py `under_own_pair`, issue 42). Built on held-out-multi-16's plan-tracker
(/work/r21-after-multi16): RTE-5's check said "OBJ-14 contradicted: nextThoughtNeeded true sent, false
answered" (a final thought at its planned total, CMP-1's change), its own replay showed nextThoughtNeeded
differing, and it was listed under OBJ-14, whose pair is a revision answered under the number it revises."""

from __future__ import annotations

import json
from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

CALL: Final = "on the example's tools/call 2"
FIELDS: Final = ("thoughtNumber", "totalThoughts", "nextThoughtNeeded", "thoughtHistoryLength")
VALUES: Final = {"thoughtNumber": (31, 30), "totalThoughts": (3, 9), "nextThoughtNeeded": (True, False),
                 "thoughtHistoryLength": (2, 1)}
BOX: Final = ("stderr: 6 lines on each side; changes line 2 “┌─────────┐” to “+---------+”, line 3 "
              "“│ 💭 Thought 1/1 │” to “| 💭 Thought 1/1 |”")


def _answer(**changed: object) -> str:
    fields: dict[str, object] = {"thoughtNumber": 31, "totalThoughts": 3, "nextThoughtNeeded": True,
                                 "branches": [], "thoughtHistoryLength": 2}
    text = json.dumps({**fields, **changed})
    return json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": text}]}})


def _js(value: object) -> str:
    return json.dumps(value)


def _pair(field: str, cause: str = "") -> Evidence:
    """A reproduced pair of an accepted call whose answers differ first in `field`."""
    was, now = VALUES[field]
    said = f"result.content[0].text → {field}: {_js(was)} on the original, {_js(now)} here"
    return Evidence(reproduced=True, at=CALL, cause=cause, differences=[said],
                    original=_answer(**{field: was}), target=_answer(**{field: now}))


def _ref(name: str, message: str, contradicted: list[str]) -> TestRef:
    return TestRef(nodeid=f"t::{name}", status="failed", examples=1, contradicted=contradicted,
                   message=message)


def _record(rid: str, evidence: Evidence | None, tests: list[TestRef], explained_by: str | None = None,
            reason: str = "") -> RecordVerdict:
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", evidence=evidence, tests=tests, explained_by=explained_by,
                         reason=reason or tests[0].message)


def _seen(field: str) -> str:
    """A check's words for an answer differing in `field` (as `suite/answers.py` says it)."""
    was, now = VALUES[field]
    return f"{field} {_js(was).lower()} sent, {_js(now).lower()} answered"


def _cause(rid: str, field: str) -> tuple[RootCause, RecordVerdict]:
    pair = _pair(field, rid)
    cause = RootCause(id=rid, records=[rid], explains=[], evidence=pair,
                      summary=f"{rid} departs — {pair.differences[0].partition(' → ')[2]}")
    return cause, _record(rid, pair, [_ref(rid.lower(), f"{rid} contradicted: {_seen(field)}", [rid])])


def _grouped(theirs: str, own: str, own_pair: Evidence) -> dict[str, str | None]:
    """OBJ-14 (its pair differing in `theirs`) proposed for RTE-5, one of whose checks names OBJ-14 and says
    `own` differed; CMP-1's pair differs in `own`."""
    proposed, lead = _cause("OBJ-14", theirs)
    other, other_lead = _cause("CMP-1", own)
    check = _ref("rte5", f"OBJ-14 contradicted: {_seen(own)}: the answer {{ \"thoughtNumber\": 9 }}",
                 ["OBJ-14"])
    # A check of its own, naming no record, that failed on a third change and speaks of OBJ-14's field too.
    beside = _ref("rte5-total", f"totalThoughts came back 9007199254740991 for {theirs} 1 and totalThoughts "
                  "3, where the original answers 3", [])
    departure = _record("RTE-5", own_pair, [check, beside], explained_by="OBJ-14")
    proposed = proposed.model_copy(update={"explains": ["RTE-5"]})
    _, records = checked_explanations([proposed, other], [lead, other_lead, departure])
    return {rv.id: rv.explained_by for rv in records}


PAIRS: Final = st.tuples(st.sampled_from(FIELDS), st.sampled_from(FIELDS)).filter(lambda p: p[0] != p[1])


@given(PAIRS)
def test_a_departure_goes_where_its_own_pair_differs(fields: tuple[str, str]) -> None:
    theirs, own = fields
    assert _grouped(theirs, own, _pair(own))["RTE-5"] == "CMP-1"


@given(PAIRS)
def test_a_departure_whose_pair_differs_as_its_causes_stays(fields: tuple[str, str]) -> None:
    theirs, own = fields
    assert _grouped(theirs, own, _pair(theirs))["RTE-5"] == "OBJ-14"


@given(st.sampled_from(FIELDS))
def test_the_box_every_call_shows_moves_nothing(theirs: str) -> None:
    """A pair led by the box, for a record whose own line is another failure, places it under no box cause
    (held-out-multi-15's tidy-plan: RTE-5's checks saw totals cut to 25 and, once, the ASCII box every call
    draws; its own replay showed the box)."""
    proposed, lead = _cause("RTE-4", theirs)
    box = Evidence(reproduced=True, at=CALL, cause="CMP-5", differences=[BOX], original=_answer(),
                   target=_answer())
    drawn = RootCause(id="CMP-5", records=["CMP-5"], explains=[], evidence=box,
                      summary=f"CMP-5 departs — {BOX}")
    frame = "CMP-5 contradicted: stderr holds a frame, but no box in CMP-5's form: “+---------+”"
    drawn_lead = _record("CMP-5", box, [_ref("cmp5", frame, ["CMP-5"])])
    checks = [_ref("rte5", f"RTE-4 contradicted: {_seen(theirs)}: the answer {{ \"thoughtNumber\": 21 }}",
                   ["RTE-4"]), _ref("rte5-box", frame, ["CMP-5"])]
    departure = _record("RTE-5", box.model_copy(update={"cause": ""}), checks, explained_by="RTE-4")
    proposed = proposed.model_copy(update={"explains": ["RTE-5"]})
    _, records = checked_explanations([proposed, drawn], [lead, drawn_lead, departure])
    assert {rv.id: rv.explained_by for rv in records}["RTE-5"] != "CMP-5"
