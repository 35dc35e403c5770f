"""A fork that changes many things: each "explained by" is checked against the record's own replayed pair,
and the records the check refuses become causes of their own, grouped by what their pairs differ about
(gate/evidence.py `checked_explanations`, issue 42)."""

from __future__ import annotations

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

COUNT = 'result.content[0].text → thoughtHistoryLength: 2 on the original, 1 here'
STATUS = 'result.content[0].text → status: absent on the original, "recorded" here'
BOX = 'stderr: 6 lines on each side; changes line 3 “│ 💭 Thought 5/5 │” to “│ 💭 Thought 5/6 │”'
TOTAL = 'result.content[0].text → totalThoughts: 5 on the original, 6 here'


def _pair(*differences: str, at: str = "on the example's tools/call 2") -> Evidence:
    return Evidence(reproduced=True, at=at, differences=list(differences))


def _record(rid: str, explained_by: str | None, evidence: Evidence | None,
            tests: list[tuple[str, list[str]]]) -> RecordVerdict:
    """`tests`: (node id, records its failure names as contradicted), all failing."""
    refs = [TestRef(nodeid=n, status="failed", examples=1, contradicted=c) for n, c in tests]
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", explained_by=explained_by, evidence=evidence, tests=refs)


def _cause(rid: str, explains: list[str], evidence: Evidence) -> RootCause:
    return RootCause(id=rid, records=[rid], explains=explains, summary=f"{rid} departs",
                     evidence=evidence.model_copy(update={"cause": rid}))


def test_records_differing_elsewhere_than_their_cause_become_a_cause_of_their_own() -> None:
    """The count reset and an answer key added by one fork: the key's records were proposed under the count's
    cause; their pairs differ on `status`, so they split off, led by the record whose failing check is its
    own (B), the other (C, whose check also read another record) explained by it."""
    causes = [_cause("A", ["B", "C", "D"], _pair(COUNT))]
    records = [
        _record("A", None, _pair(COUNT), [("t::a", ["A"])]),
        _record("B", "A", _pair(STATUS, at="on the example's tools/call 1"), [("t::b", [])]),
        _record("C", "A", _pair(STATUS, at="on the example's tools/call 1"), [("t::c", []), ("t::cd", [])]),
        _record("D", "A", _pair(COUNT, STATUS), [("t::d", [])]),
    ]
    records.append(_record("E", None, None, [("t::cd", [])]))
    kept, out = checked_explanations(causes, records)
    by = {rv.id: rv.explained_by for rv in out}
    assert [c.id for c in kept] == ["A", "B"]
    assert by == {"A": None, "B": None, "C": "B", "D": "A", "E": None}
    assert kept[0].explains == ["D"] and kept[1].explains == ["C"]
    assert kept[1].evidence is not None and kept[1].evidence.differences == [STATUS]
    assert "status" in kept[1].summary


def test_a_check_naming_the_cause_does_not_hold_a_record_whose_own_pair_differs_elsewhere() -> None:
    """Its check saw the count fall and named the count's record; its own pair, replayed, shows only the added
    key: its departure is the key's change, a cause of its own."""
    causes = [_cause("A", ["B"], _pair(COUNT))]
    records = [_record("A", None, _pair(COUNT), [("t::a", ["A"])]),
               _record("B", "A", _pair(STATUS), [("t::b", ["A"])])]
    kept, out = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["A", "B"]
    assert {rv.id: rv.explained_by for rv in out} == {"A": None, "B": None}


def test_a_record_whose_pair_shows_the_cause_difference_stays_under_it() -> None:
    causes = [_cause("A", ["B"], _pair(COUNT))]
    records = [_record("A", None, _pair(COUNT), [("t::a", ["A"])]),
               _record("B", "A", _pair(COUNT, STATUS), [("t::b", ["A"])])]
    kept, _ = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["A"] and kept[0].explains == ["B"]


def test_a_record_differing_only_in_the_box_opens_no_cause() -> None:
    """The box shows the total, the labels and the thought: a record whose pair differs only there cannot say
    which change moved it, and keeps its own line rather than name a cause of its own."""
    causes = [_cause("A", [], _pair(TOTAL)), _cause("R", ["B"], _pair("the original refuses this call"))]
    records = [_record("A", None, _pair(TOTAL), [("t::a", ["A"])]),
               _record("R", None, _pair("the original refuses this call"), [("t::r", ["R"])]),
               _record("B", "R", _pair(BOX), [("t::b", [])])]
    kept, out = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["A", "R"] and kept[1].explains == []
    assert {rv.id: rv.explained_by for rv in out}["B"] is None


def test_refusals_in_other_words_naming_no_field_open_no_cause() -> None:
    """A crash's message quoting the code's own names (`this.branches[label]`) moved with another change."""
    crash = "both refuse this call, in other words: “a.push is not a function” on the original, “b…” here"
    causes = [_cause("A", ["B"], _pair(COUNT))]
    records = [_record("A", None, _pair(COUNT), [("t::a", ["A"])]),
               _record("B", "A", _pair(crash), [("t::b", [])])]
    kept, out = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["A"] and {rv.id: rv.explained_by for rv in out}["B"] is None


def test_a_crash_the_original_refuses_opens_no_cause_but_a_refused_field_does() -> None:
    """A lowercased label no longer on Object.prototype: the original's crash is no rule; a required field
    defaulted (the original refuses naming it, this server accepts) is a change of its own."""
    crash = ("the original refuses this call — “this.branches[label].push is not a function” "
             "(isError) — and this server accepts it")
    rule = ("the original refuses this call — “Invalid nextThoughtNeeded: must be a boolean” (isError) — and "
            "this server accepts it")
    causes = [_cause("A", ["B", "C"], _pair(COUNT))]
    records = [_record("A", None, _pair(COUNT), [("t::a", ["A"])]),
               _record("B", "A", _pair(crash), [("t::b", [])]),
               _record("C", "A", _pair(rule), [("t::c", [])])]
    kept, out = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["A", "C"]
    assert {rv.id: rv.explained_by for rv in out} == {"A": None, "B": None, "C": None}


def test_a_record_without_a_reproduced_pair_opens_no_cause() -> None:
    causes = [_cause("A", ["B"], _pair(COUNT))]
    records = [_record("A", None, _pair(COUNT), [("t::a", ["A"])]),
               _record("B", "A", Evidence(reproduced=False), [("t::b", [])])]
    kept, out = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["A"] and kept[0].explains == []
    assert {rv.id: rv.explained_by for rv in out}["B"] is None


def test_a_pair_that_is_not_its_failure_neither_takes_a_record_from_its_cause_nor_opens_one() -> None:
    """Its check saw the labels respelled and named the labels' record; its own sequence, replayed, differs
    only at the count (another change of the fork), so the pair is marked not its failure: it stays under the
    cause its check names, and opens no cause of its own."""
    labels = 'result.content[0].text → branches[0]: “a” on the original, “p/a” here'
    causes = [_cause("A", ["B"], _pair(labels)), _cause("C", [], _pair(COUNT))]
    elsewhere = _pair(COUNT).model_copy(update={"not_its_failure": True})
    records = [_record("A", None, _pair(labels), [("t::a", ["A"])]),
               _record("C", None, _pair(COUNT), [("t::c", ["C"])]),
               _record("B", "A", elsewhere, [("t::b", ["A"])]),
               _record("D", None, elsewhere, [("t::d", [])])]
    kept, out = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["A", "C"] and kept[0].explains == ["B"]
    assert {rv.id: rv.explained_by for rv in out} == {"A": None, "C": None, "B": "A", "D": None}


def test_pairs_that_are_not_their_records_failure_open_no_cause() -> None:
    """Records split off a cause whose pairs differ only elsewhere than their checks failed (a fork's added
    key where the check read the count) open no cause on that difference: it is another change's, and a cause
    named for it would be headed by a record it does not explain (bartoszkula-ts, AUDIT-round9: "CMP-3 departs
    — serverInfo.version …" over a missing status key). Each keeps its own line, its check's words."""
    labels = 'result.content[0].text → branches[0]: “a” on the original, “p/a” here'
    elsewhere = _pair(STATUS).model_copy(update={"not_its_failure": True})
    said = "no key 'thoughtHistoryLength' where the check read one"
    causes = [_cause("A", ["B", "C"], _pair(labels))]
    records = [_record("A", None, _pair(labels), [("t::a", ["A"])]),
               *(rv.model_copy(update={"tests": [t.model_copy(update={"message": said}) for t in rv.tests]})
                 for rv in (_record("B", "A", elsewhere, [("t::b", [])]),
                            _record("C", "A", elsewhere, [("t::c", [])])))]
    kept, out = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["A"] and kept[0].explains == []
    assert {rv.id: rv.explained_by for rv in out} == {"A": None, "B": None, "C": None}


SKIP = ("the original accepts this call and this server refuses it — “Invalid thoughtNumber: 9 skips ahead "
        "of 5 recorded thoughts” (isError)")
BRANCH = ("the original accepts this call and this server refuses it, naming `branchId` — “Invalid branchId: "
          "must be a non-empty string when branchFromThought is set” (isError)")


def test_a_cause_opened_on_a_refusal_is_led_by_the_rule_it_breaks() -> None:
    """A fork adding two guards: the `thoughtNumber` refusal's records split off from the `branchId` one's.
    The record whose statement is the rule the refusal breaks (thoughtNumber named where it says what is
    guarded) leads, though the fresh-process record has more failing checks of its own (hardened-inputs:
    RTE-3/a1, not ABS-1)."""
    causes = [_cause("G", ["F", "N"], _pair(BRANCH))]
    records = [
        _record("G", None, _pair(BRANCH), [("t::g", ["G"])]),
        _record("F", "G", _pair(SKIP), [("t::f1", []), ("t::f2", [])]),
        _record("N", "G", _pair(SKIP), [("t::n", []), ("t::fn", [])]),
    ]
    records[2] = records[2].model_copy(update={
        "statement": "thought, thoughtNumber and totalThoughts are guarded by falsiness, not presence"})
    records[1] = records[1].model_copy(update={
        "statement": "Nothing is persisted, so retained state dies with the process"})
    kept, out = checked_explanations(causes, records)
    assert [c.records for c in kept] == [["G"], ["N"]]
    assert {rv.id: rv.explained_by for rv in out} == {"G": None, "F": "N", "N": None}
    # A statement naming the field without saying what is refused (a total raised to the number) does not
    # outrank the guard's, whichever order the records come in.
    records[1] = records[1].model_copy(update={
        "statement": "If thoughtNumber exceeds totalThoughts, totalThoughts is raised to thoughtNumber"})
    kept, _ = checked_explanations(causes, records)
    assert [c.records for c in kept] == [["G"], ["N"]]


CRASH = ("both refuse this call, in other words: “Cannot read properties of undefined (reading 'thought')” "
         "on the original, “TypeError: Cannot read properties of undefined (reading 'thought')” here")
PREFIXED = ("the refusal of `thought` is re-worded: this server puts “Error: ” before the original's "
            "“Invalid thought: must be a string”")
WHOLE = ("O contradicted: a refusal's error reads the exception stringified whole, “Error: Invalid thought: "
         "must be a string”, where the original answers its message alone")


def _named_by(rid: str, messages: list[tuple[str, list[str], str]]) -> RecordVerdict:
    """A record explained by O, its pair the prefixed refusal, its failing checks (node id, named, words)."""
    refs = [TestRef(nodeid=n, status="failed", examples=1, contradicted=c, message=m) for n, c, m in messages]
    return _record(rid, "O", _pair(PREFIXED, at="on the example's tools/call 1"), []).model_copy(
        update={"tests": refs})


def test_a_record_whose_checks_all_name_the_cause_and_say_its_pair_stays_under_it() -> None:
    """A fork stringifying its errors whole: the cause's pair shows it on a crash ("TypeError: …"), the
    record's on a refusal ("Error: " put before it); every check of the record names the cause and quotes
    the prefixed refusal. One change, one cause (typescript-port: OBJ-8, not OBJ-8 and CMP-2/a2 apart)."""
    causes = [_cause("O", ["P", "Q"], _pair(CRASH, at="on the example's tools/call 1"))]
    records = [
        _record("O", None, _pair(CRASH, at="on the example's tools/call 1"), [("t::o", ["O"])]),
        _named_by("P", [("t::p1", ["O"], WHOLE), ("t::p2", ["O"], WHOLE)]),
        # One of Q's checks names another record and says something else: its pair is not said by the
        # cause's checks alone, and it is placed by its own pair (a cause of its own).
        _named_by("Q", [("t::q1", ["O"], WHOLE), ("t::q2", ["R"], "R contradicted: the count fell by one")]),
    ]
    kept, out = checked_explanations(causes, records)
    by = {rv.id: rv.explained_by for rv in out}
    assert by["P"] == "O"
    assert by["Q"] != "O"
    assert kept[0].id == "O" and "P" in kept[0].explains and "Q" not in kept[0].explains
