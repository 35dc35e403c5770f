"""A refusal of one field is not explained by a cause refusing another (gate/evidence.py `_same_change`,
`_elsewhere`; issue 42): nalyk-ts's RTE-3, a branchId refusal, "explained" five records whose own pairs refuse
isRevision, branchFromThought or revisesThought, and its 50-branch cap four checks that saw the history pinned
at 1000 (reports/third-party/AUDIT-round9.md, classes 4 and 5). The differences are the words the run's
evidence writes for those pairs."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

_LONG = "must be a non-empty string with max 100 characters"
_REFUSES = "the original accepts this call and this server refuses it"
BRANCH_ID = f"{_REFUSES}, naming `branchId` — “Invalid branchId: {_LONG}” (isError)"
IS_REVISION = f"{_REFUSES} — “Invalid isRevision: must be a boolean” (isError)"
REQUIRED = f"{_REFUSES} — “revisesThought is required when isRevision is true” (isError)"
CAP = f"{_REFUSES} — “Maximum number of branches (50) exceeded” (isError)"
KEY = "result.content[0].text → currentSequenceId: absent on the original, null here"
REWORDED = ("the refusal of `thought` is re-worded: “Invalid thought: must be a string” on the original, "
            "“Invalid thought: must be a non-empty string” here")
FIELDS = ("thought", "thoughtNumber", "totalThoughts", "nextThoughtNeeded", "isRevision", "revisesThought",
          "branchFromThought", "branchId", "needsMoreThoughts")


def _pair(*differences: str, at: str = "on the example's tools/call 1", mark: bool = False) -> Evidence:
    return Evidence(reproduced=True, at=at, differences=list(differences), not_its_failure=mark)


def _record(rid: str, explained_by: str | None, evidence: Evidence | None,
            tests: list[tuple[list[str], str]]) -> RecordVerdict:
    """`tests`: (records its failure names as contradicted, its message), all failing."""
    refs = [TestRef(nodeid=f"t::{rid}{i}", status="failed", examples=1, contradicted=c, message=m)
            for i, (c, m) in enumerate(tests)]
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", explained_by=explained_by, evidence=evidence, tests=refs)


def _cause(rid: str, explains: list[str], evidence: Evidence, summary: str = "") -> RootCause:
    return RootCause(id=rid, records=[rid], explains=explains, summary=summary or f"{rid} departs",
                     evidence=evidence.model_copy(update={"cause": rid}))


def _refused(field: str) -> str:
    return f"{_REFUSES} — “Invalid {field}: must be a boolean” (isError)"


def _explained(causes: list[RootCause], records: list[RecordVerdict]) -> dict[str, str | None]:
    _, out = checked_explanations(causes, records)
    return {rv.id: rv.explained_by for rv in out}


def test_a_refusal_of_is_revision_is_not_explained_by_a_branch_id_refusal() -> None:
    """RTE-4/a1's check saw no record contradicted; its pair refuses isRevision (a short refusal: the
    difference says no `naming`): not RTE-3's branchId change."""
    causes = [_cause("RTE-3", ["RTE-4/a1"], _pair(BRANCH_ID))]
    records = [_record("RTE-3", None, _pair(BRANCH_ID), [(["RTE-3"], "call was refused as invalid")]),
               _record("RTE-4/a1", "RTE-3", _pair(IS_REVISION, at="on the example's tools/call 3"),
                       [([], "call was rejected: isError “revisesThought is required …”")])]
    assert _explained(causes, records)["RTE-4/a1"] != "RTE-3"


def test_a_check_naming_the_cause_with_no_refused_field_is_held_by_its_own_pair() -> None:
    """ABS-6's check names RTE-3 and quotes no refusal; its own pair refuses isRevision: a refusal of another
    field, elsewhere from RTE-3's branchId (every refusal was one family before)."""
    causes = [_cause("RTE-3", ["ABS-6"], _pair(BRANCH_ID))]
    records = [_record("RTE-3", None, _pair(BRANCH_ID), [(["RTE-3"], "call was refused as invalid")]),
               _record("ABS-6", "RTE-3", _pair(IS_REVISION),
                       [(["RTE-3"], "the answer reads isRevision false")])]
    assert _explained(causes, records)["ABS-6"] is None


def test_a_refusal_naming_no_field_is_apart_from_one_naming_a_field() -> None:
    causes = [_cause("RTE-3", ["RTE-9"], _pair(BRANCH_ID))]
    records = [_record("RTE-3", None, _pair(BRANCH_ID), [(["RTE-3"], "refused")]),
               _record("RTE-9", "RTE-3", _pair(REQUIRED), [([], "call was rejected")])]
    assert _explained(causes, records)["RTE-9"] != "RTE-3"


def test_the_same_field_refused_stays_under_its_cause() -> None:
    causes = [_cause("RTE-3", ["CMP-1"], _pair(BRANCH_ID))]
    records = [_record("RTE-3", None, _pair(BRANCH_ID), [(["RTE-3"], "refused")]),
               _record("CMP-1", "RTE-3", _pair(BRANCH_ID, at="on the example's tools/call 5"),
                       [(["RTE-3"], 'refused as invalid: isError { "error": "Invalid branchId: x" }')])]
    assert _explained(causes, records)["CMP-1"] == "RTE-3"


@given(field=st.sampled_from(FIELDS), other=st.sampled_from(FIELDS), named=st.booleans())
def test_a_pair_refusing_a_field_is_explained_only_by_a_cause_refusing_it(
        field: str, other: str, named: bool) -> None:
    """Whether the record's check names the cause's record or none: the record stays under the cause exactly
    when its own pair refuses the field the cause's refuses."""
    causes = [_cause("C", ["R"], _pair(_refused(other)))]
    records = [_record("C", None, _pair(_refused(other)), [(["C"], "refused")]),
               _record("R", "C", _pair(_refused(field)), [(["C"] if named else [], "a failure")])]
    assert (_explained(causes, records)["R"] == "C") == (field == other)


def test_a_check_that_saw_the_history_capped_is_not_the_branch_caps() -> None:
    """The cause refusing at a branch cap holds no pair of its own, so its leading record's is borrowed: an
    added answer key. OBJ-14's check saw the count pinned at 1000 (OBJ-2 contradicted; the added key only in
    the answer it quotes): that is OBJ-2's change; CLM-5's check failed on the added keys, and stays."""
    quoted = '{ "thoughtNumber": 1, "branches": [], "thoughtHistoryLength": 1000, "currentSequenceId": null }'
    causes = [RootCause(id="RTE-5", records=["RTE-5"], explains=["OBJ-14", "CLM-5"],
                        summary=f"RTE-5 departs — the call was refused by a bound: {CAP}", evidence=None),
              _cause("OBJ-2", [], _pair(CAP, mark=True))]
    pinned = ("OBJ-2 contradicted: an accepted call left thoughtHistoryLength at 1000, where each accepted "
              f"call adds one: the answer {quoted}")
    records = [
        _record("RTE-5", None, _pair(KEY, at="on the example's tools/call 2"),
                [(["RTE-5"], f"RTE-5 contradicted: the call was refused by a bound: {CAP}")]),
        _record("OBJ-2", None, _pair(CAP, mark=True), [(["OBJ-2"], pinned)]),
        _record("OBJ-14", "RTE-5", _pair(KEY, at="on the example's tools/call 2"), [(["OBJ-2"], pinned)]),
        _record("CLM-5", "RTE-5", _pair(KEY, at="on the example's tools/call 3"),
                [([], f"an answer has 1 field(s) more than …: currentSequenceId: the answer {quoted}")]),
    ]
    by = _explained(causes, records)
    assert by["OBJ-14"] != "RTE-5"
    assert by["CLM-5"] == "RTE-5"


def test_a_reworded_refusal_a_check_files_under_another_record_stays_with_the_rewording() -> None:
    """OBJ-8/a1's checks name RTE-3, but say the re-worded refusal the RTE-8 cause's pair shows: it stays."""
    causes = [_cause("RTE-8", ["OBJ-8/a1"], _pair(REWORDED)), _cause("RTE-3", [], _pair(BRANCH_ID))]
    said = ("RTE-3 contradicted: refused with “Invalid thought: must be a non-empty string”, where the "
            "original's guard says “Invalid thought: must be a string”")
    records = [_record("RTE-8", None, _pair(REWORDED), [(["RTE-8"], "re-worded")]),
               _record("RTE-3", None, _pair(BRANCH_ID), [(["RTE-3"], "refused")]),
               _record("OBJ-8/a1", "RTE-8", _pair(REWORDED), [(["RTE-3"], said)])]
    assert _explained(causes, records)["OBJ-8/a1"] == "RTE-8"


def test_a_record_counted_at_the_cap_stays_under_the_cap_whose_pair_is_elsewhere() -> None:
    """RTE-3/a1's check names OBJ-2 (the count pinned); OBJ-2's pair shows another change (not its failure):
    that pair says nothing against the record's own, a re-worded refusal, and the check's naming holds."""
    causes = [_cause("OBJ-2", ["RTE-3/a1"], _pair(CAP, mark=True))]
    records = [_record("OBJ-2", None, _pair(CAP, mark=True), [(["OBJ-2"], "pinned")]),
               _record("RTE-3/a1", "OBJ-2", _pair(REWORDED),
                       [(["OBJ-2"], "OBJ-2 contradicted: rejected call changed the store (thought)")])]
    assert _explained(causes, records)["RTE-3/a1"] == "OBJ-2"
