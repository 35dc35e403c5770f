"""A departure whose own failure is a call refused in words the original never writes is that refusal's
change, not a cause's whose pair is another field's value on an accepted call (gate/evidence.py, issue 42).
Built on held-out-multi-15's tidy-plan (/work/r20-after-multi15): RTE-3's checks saw "Invalid arguments:
unknown field sessionId" (the fork refusing argument names the original takes silently), one more check of
it saw RTE-4's totals cut to 25, and its own replay showed only the ASCII box; it was listed under RTE-4."""

from __future__ import annotations

import json
from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations, one_cause_per_change
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

BOX = ("stderr: 6 lines on each side; changes line 2 “┌─────────┐” to “+---------+”, line 3 "
       "“│ 💭 Thought 1/1 │” to “| 💭 Thought 1/1 |”")
CALL: Final = "on the example's tools/call 1"
NAMES = st.sampled_from(["sessionId", "reset", "branch_from_thought", "mergeBranch", "confidence"])
REFUSALS = st.sampled_from(["Invalid arguments: unknown field {}", "Unexpected argument: {}",
                            "{} is not a known property"])


def _answer(total: int) -> str:
    text = json.dumps({"thoughtNumber": 23, "totalThoughts": total, "nextThoughtNeeded": True, "branches": [],
                       "thoughtHistoryLength": 5})
    return json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": text}]}})


def _ref(name: str, message: str, contradicted: list[str]) -> TestRef:
    return TestRef(nodeid=f"t::{name}", status="failed", examples=1, contradicted=contradicted,
                   message=message)


def _record(rid: str, evidence: Evidence | None, tests: list[TestRef], explained_by: str | None = None
            ) -> RecordVerdict:
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", evidence=evidence, tests=tests, explained_by=explained_by,
                         reason=tests[0].message)


def _refused(words: str, rid: str) -> str:
    return (f'{rid} contradicted: call was refused as invalid: isError {{ "error": "{words}", '
            '"status": "failed" }')


def _capped(cap: int, sent: int) -> tuple[RootCause, RecordVerdict]:
    """RTE-4, the totals cut: a pair of an accepted call whose answers differ in totalThoughts."""
    said = f"result.content[0].text → totalThoughts: {sent} on the original, {cap} here"
    pair = Evidence(reproduced=True, at=CALL, cause="RTE-4", differences=[said],
                    original=_answer(sent), target=_answer(cap))
    said = f"RTE-4 contradicted: totalThoughts {sent} sent with thoughtNumber 23, {cap} answered"
    cause = RootCause(id="RTE-4", records=["RTE-4"], explains=[], evidence=pair,
                      summary=f"RTE-4 departs — totalThoughts: {sent} on the original, {cap} here")
    return cause, _record("RTE-4", pair, [_ref("total", said, ["RTE-4"])])


@given(cap=st.integers(min_value=2, max_value=30), more=st.integers(min_value=1, max_value=50),
       names=st.lists(NAMES, min_size=1, max_size=3, unique=True), refusal=REFUSALS)
def test_a_record_refused_in_words_of_its_own_is_no_cause_of_another_fields_value(
        cap: int, more: int, names: list[str], refusal: str) -> None:
    """RTE-3, listed under RTE-4 by the grouping, its own checks each seeing a call refused in the fork's
    words and one check seeing the total cut: after the checks, RTE-3 is under no cause of RTE-4's, and its
    records (its own, one whose own pair shows the refusal) stay together."""
    cause, capped = _capped(cap, cap + more)
    box = Evidence(reproduced=True, at=CALL, differences=[BOX], not_its_failure=True)
    own = [_ref(f"own{i}", _refused(refusal.format(name), "RTE-3"), ["RTE-3"])
           for i, name in enumerate(names)]
    beside = _ref("beside", f"RTE-4 contradicted: totalThoughts {cap + more} sent with thoughtNumber 23, "
                  f"{cap} answered; the original answers {cap + more}", ["RTE-4"])
    words = refusal.format(names[0])
    shown = Evidence(reproduced=True, at="on the example's tools/call 2", original=_answer(3),
                     differences=[f"the original accepts this call and this server refuses it — “{words}” "
                                  "(isError)"])
    records = [capped, _record("RTE-3", box, [*own, beside], explained_by="RTE-4"),
               _record("OBJ-13", shown, [_ref("obj", _refused(words, "RTE-3"), ["RTE-3"])],
                       explained_by="RTE-4")]
    cause = cause.model_copy(update={"explains": ["RTE-3", "OBJ-13"]})
    causes, _ = checked_explanations([cause], records)
    under = {r: c.id for c in causes for r in [*c.records, *c.explains]}
    assert under.get("RTE-3") != "RTE-4" and under.get("OBJ-13") != "RTE-4", under
    assert under.get("OBJ-13") == under.get("RTE-3") is not None, under


@given(rows=st.integers(min_value=1, max_value=9))
def test_two_causes_replaying_only_another_change_are_not_one_change_by_it(rows: int) -> None:
    """tidy-plan's RTE-3 (argument names refused) and ABS-11 (the count falling after a revision): each
    cause's pair, replayed, showed only the ASCII box, not where its checks failed; that box is no sign the
    two are one change (before: one cause, then folded into RTE-4)."""
    box = BOX.replace("1/1", f"{rows}/{rows}")
    shown = Evidence(reproduced=True, at=CALL, differences=[box], not_its_failure=True)
    records = [_record("RTE-3", shown, [_ref("a", _refused("Invalid arguments: unknown field reset", "RTE-3"),
                                              ["RTE-3"])]),
               _record("ABS-11", shown, [_ref("b", "ABS-11 contradicted: the shared process answered "
                                                   "thoughtHistoryLength 984 after 1070", ["ABS-11"])])]
    causes = [RootCause(id=rv.id, records=[rv.id], explains=[], summary=f"{rv.id} departs — {rv.reason}")
              for rv in records]
    merged, _ = one_cause_per_change(causes, records)
    assert [c.id for c in merged] == ["RTE-3", "ABS-11"], [(c.id, c.records) for c in merged]


def test_two_causes_whose_pairs_are_their_failure_showing_one_box_change_are_one() -> None:
    """The premise: the same box change shown where both causes' checks failed is one change."""
    shown = Evidence(reproduced=True, at=CALL, differences=[BOX])
    records = [_record(rid, shown, [_ref(rid, f"{rid} contradicted: no box in the original's form", [rid])])
               for rid in ("CMP-5", "RTE-9")]
    causes = [RootCause(id=rv.id, records=[rv.id], explains=[], summary=f"{rv.id} departs — {BOX}")
              for rv in records]
    merged, _ = one_cause_per_change(causes, records)
    assert len(merged) == 1, [(c.id, c.records) for c in merged]
