"""Each departure judged by its own failure, and one change one cause (gate/evidence.py, issue 42): a record
stays under a cause only when its own difference is the cause's (a re-worded refusal is one change whatever
field it names), or, its own pair showing another change first, when its check's own words saw the cause's
difference; two causes whose pairs show the same difference are one; a refusal, not the box it left out,
is a refused call's difference; a key added to the listed tool is CMP-2's."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import _about, _Answer, _compared, checked_explanations, its_failure
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

COUNT = "result.content[0].text → thoughtHistoryLength: 2 on the original, 1 here"
TOTAL = "result.content[0].text → totalThoughts: 1 on the original, 2 here"
ZERO = ("the original refuses this call — “Invalid thoughtNumber: must be a number” (isError) — and this "
        "server accepts it")
BOX_MISSING = ("stderr: 0 lines here where the original has 6; drops “”, “┌────┐”, “│ 💭 Thought 1/1 │” "
               "and 3 more")
SAID = "the original refuses this call (thoughtNumber)"
REFUSED_HERE = ("the original accepts this call and this server refuses it — “Invalid thought: too long” "
                "(isError)")


def _reworded(field: str) -> str:
    return (f"the refusal of `{field}` is re-worded: this server puts “Erreur: ” before the original's "
            f"“Invalid {field}: must be a string”")


def _pair(*differences: str, at: str = "on the example's tools/call 1", elsewhere: bool = False) -> Evidence:
    return Evidence(reproduced=True, at=at, differences=list(differences), not_its_failure=elsewhere)


def _record(rid: str, explained_by: str | None, evidence: Evidence | None,
            tests: list[tuple[str, list[str], str]]) -> RecordVerdict:
    """`tests`: (node id, records its failure names as contradicted, its message), all failing."""
    refs = [TestRef(nodeid=n, status="failed", examples=1, contradicted=c, message=m) for n, c, m in tests]
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", explained_by=explained_by, evidence=evidence, tests=refs)


def _cause(rid: str, explains: list[str], evidence: Evidence | None) -> RootCause:
    return RootCause(id=rid, records=[rid], explains=explains, summary=f"{rid} departs",
                     evidence=None if evidence is None else evidence.model_copy(update={"cause": rid}))


@given(fields=st.lists(st.sampled_from(["thought", "thoughtNumber", "totalThoughts", "branchId",
                                        "nextThoughtNeeded"]), min_size=2, max_size=2))
def test_a_re_worded_refusal_is_one_change_whatever_field_it_names(fields: list[str]) -> None:
    """A fork re-wording its messages shows it on whichever field a check's call was refused for."""
    mine, theirs = fields
    causes = [_cause("A", ["B"], _pair(_reworded(theirs)))]
    records = [_record("A", None, _pair(_reworded(theirs)), [("t::a", ["A"], "re-worded")]),
               _record("B", "A", _pair(_reworded(mine)),
                       [("t::b", [], f"the refusal reads “Erreur: Invalid {mine}: must be a string”")])]
    kept, out = checked_explanations(causes, records)
    assert kept[0].explains == ["B"] and {rv.id: rv.explained_by for rv in out}["B"] == "A"


def test_a_refusal_of_another_field_is_another_change() -> None:
    """Refused on another field, not re-worded: two changes (the control of the test above)."""
    other = REFUSED_HERE
    causes = [_cause("A", ["B"], _pair(ZERO))]
    records = [_record("A", None, _pair(ZERO), [("t::a", ["A"], SAID)]),
               _record("B", "A", _pair(other), [("t::b", [], "call was refused as invalid")])]
    _, out = checked_explanations(causes, records)
    assert {rv.id: rv.explained_by for rv in out}["B"] != "A"


def test_a_pair_showing_another_change_first_stays_only_when_its_check_saw_the_cause() -> None:
    """Its check names the cause's record; its own pair leads with the count reset (another change of the
    fork). It stays under the cause only when its check's own words (not the answer it quotes whole) say
    what the cause's pair shows."""
    causes = [_cause("A", ["B"], _pair(ZERO))]
    answer = ' the answer { "thoughtNumber": 0, "thoughtHistoryLength": 1 }'
    seen = ("A contradicted: the original refuses this call (thoughtNumber); it was accepted, "
            "thoughtHistoryLength 1:")
    saw = _record("B", "A", _pair(COUNT), [("t::b", ["A"], seen + answer)])
    unseen = "A contradicted: thoughtHistoryLength 1:"
    blind = _record("B", "A", _pair(COUNT), [("t::b", ["A"], unseen + answer)])
    lead = _record("A", None, _pair(ZERO), [("t::a", ["A"], SAID)])
    _, out = checked_explanations(causes, [lead, saw])
    assert {rv.id: rv.explained_by for rv in out}["B"] == "A"
    _, out = checked_explanations(causes, [lead, blind])
    assert {rv.id: rv.explained_by for rv in out}["B"] is None


def test_an_answer_quoted_whole_is_not_what_the_check_saw() -> None:
    """A check quoting the whole answer (`{ "…`, with a space) shows every change of the server: its own
    words alone decide which difference is its failure; none does, the pair is not its failure."""
    rv = _record("R", None, None, [("t::r", ["X"], 'X contradicted: the original refuses this call '
                                   '(thoughtNumber); it was accepted: the answer { "totalThoughts": 2 }')])
    assert its_failure(rv, _pair(TOTAL)).not_its_failure
    assert its_failure(rv, _pair(TOTAL, ZERO)).differences[0] == ZERO


def test_two_causes_whose_pairs_show_the_same_difference_are_one() -> None:
    """A fork numbering from 0: RTE-3 and RTE-3/a1 both show thought 0 accepted where the original refuses
    it (RTE-3/a1 replayed past the cause budget: its own record's pair holds it). One change, one cause; the
    departures of the folded one go under the kept one. A cause showing another difference stays apart."""
    causes = [_cause("RTE-3", ["BAP-4/a1"], _pair(ZERO)), _cause("RTE-4", ["OBJ-14"], _pair(TOTAL)),
              _cause("RTE-3/a1", ["OBJ-8/a1"], None)]
    said = "the original refuses this call (thoughtNumber)"
    records = [_record("RTE-3", None, _pair(ZERO), [("t::g", ["RTE-3/a1"], said)]),
               _record("RTE-4", None, _pair(TOTAL), [("t::t", ["RTE-4"], "totalThoughts answered 2")]),
               _record("RTE-3/a1", None, _pair(ZERO, at="on the example's tools/call 2"),
                       [("t::f", ["RTE-3/a1"], said)]),
               _record("BAP-4/a1", "RTE-3", _pair(ZERO), [("t::b", ["RTE-3"], said)]),
               _record("OBJ-14", "RTE-4", _pair(TOTAL), [("t::o", [], "totalThoughts is 2")]),
               _record("OBJ-8/a1", "RTE-3/a1", _pair(ZERO), [("t::m", ["RTE-3/a1"], said)])]
    kept, out = checked_explanations(causes, records)
    assert [c.records for c in kept] == [["RTE-3", "RTE-3/a1"], ["RTE-4"]]
    assert kept[0].explains == ["BAP-4/a1", "OBJ-8/a1"]
    assert {rv.id: rv.explained_by for rv in out}["OBJ-8/a1"] == "RTE-3"


def test_causes_showing_other_differences_stay_apart() -> None:
    causes = [_cause("A", [], _pair(ZERO)), _cause("B", [], _pair(REFUSED_HERE)),
              _cause("C", [], _pair(ZERO, elsewhere=True))]
    records = [_record(r, None, _pair(ZERO), [(f"t::{r}", [r], "refused")]) for r in "ABC"]
    kept, _ = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["A", "B", "C"]


@given(box=st.sampled_from([BOX_MISSING, "stderr: 6 lines here where the original has 0; adds “┌─┐”"]))
def test_a_refused_call_is_headed_by_its_refusal_not_the_box_it_left_out(box: str) -> None:
    """CMP-5's check saw the box missing; the call was refused on one side: the refusal is the difference,
    and the box is still said after it."""
    refusal = REFUSED_HERE if "0 lines here" in box else ZERO
    rv = _record("CMP-5", None, None, [("t::box", ["CMP-5"], "stderr holds no box in CMP-5's form")])
    led = its_failure(rv, _pair(refusal, box))
    assert led.differences == [refusal, box] and not led.not_its_failure
    assert its_failure(rv, _pair(box)).differences == [box]


def _tools(tool: dict[str, object]) -> _Answer:
    return _Answer("tools/list", json.dumps({"result": {"tools": [tool]}}), "")


@given(key=st.sampled_from(["title", "annotations", "outputSchema", "icons"]))
def test_a_key_added_to_the_listed_tool_is_cmp_2s_pair_only(key: str) -> None:
    """CMP-2 counts the listed tool's keys ("exactly the keys name, description, inputSchema"): a key added
    is its difference on any fresh tools/list; no other record about the spec (OBJ-7's schema, OBJ-12's
    description) is told by it."""
    tool: dict[str, object] = {"name": "sequentialthinking", "description": "d", "inputSchema": {}}
    original, target = [_tools(tool)], [_tools({**tool, key: {"x": 1}})]
    for spec_by_field in (True, False):
        found = _compared(original, target, _about(["CMP-2"]), spec_by_field=spec_by_field)
        assert found is not None and found[1][0].startswith(f"result.tools[0].{key}: absent on the original")
        for other in ("OBJ-7", "OBJ-12", "OBJ-4"):
            assert _compared(original, target, _about([other]), spec_by_field=spec_by_field) is None


LIMIT = ("the original accepts this call and this server refuses it — “Rate limit exceeded: at most 25 "
         "thoughts per 10 seconds” (isError)")
RETRY = "result.content[0].text → status: “failed” on the original, “retry” here"


@given(own=st.sampled_from([None, Evidence(reproduced=False), _pair(RETRY, elsewhere=True)]))
def test_a_record_without_a_pair_of_its_own_is_placed_by_what_its_check_saw(own: Evidence | None) -> None:
    """A rate-limited fork: the store's check saw its call refused by the limit, and its own sequence shows
    none of that (not replayed, not reproduced, or only the fork's other change, a "retry" status). Proposed
    under the status change, it is refused there and placed under the limit, whose refusal its check's words
    quote; a check seeing neither keeps its own line (no sequence to show: it opens no cause of its own)."""
    causes = [_cause("RTE-5", [], _pair(LIMIT)), _cause("RTE-8", ["OBJ-2"], _pair(RETRY))]
    saw = "call was rejected: isError “Rate limit exceeded: at most 25 thoughts per 10 seconds”"
    records = [_record("RTE-5", None, _pair(LIMIT), [("t::l", ["RTE-5"], "refused by a bound")]),
               _record("RTE-8", None, _pair(RETRY), [("t::r", [], 'a refusal\'s status is "retry"')]),
               _record("OBJ-2", "RTE-8", own, [("t::o", [], saw)])]
    _, out = checked_explanations(causes, records)
    assert {rv.id: rv.explained_by for rv in out}["OBJ-2"] == "RTE-5"
    records[-1] = _record("OBJ-2", "RTE-8", own, [("t::o", [], "one append per call: 3 appends, not 4")])
    kept, out = checked_explanations(causes, records)
    assert {rv.id: rv.explained_by for rv in out}["OBJ-2"] is None
    assert [c.id for c in kept] == ["RTE-5", "RTE-8"]


def test_a_check_printing_the_value_it_saw_tells_that_difference() -> None:
    """A fork listing branches as objects: the check says "non-string branch label in [{'id': …}]" (the value
    as Python prints it), which is the pair's `branches[0]` difference, though it never says "branches"."""
    objects = ('result.content[0].text → branches[0]: "zeta" on the original, {"id": "zeta", "thoughts": 1} '
               "here")
    said = "non-string branch label in [{'id': 'zeta', 'thoughts': 1}]"
    rv = _record("OBJ-3", None, None, [("t::l", [], said)])
    assert not its_failure(rv, _pair(objects)).not_its_failure
    other = _record("OBJ-3", None, None, [("t::l", [], said.replace("zeta", "q"))])
    assert its_failure(other, _pair(objects)).not_its_failure


def test_a_check_failing_beside_a_refusal_is_not_placed_under_it_by_its_words() -> None:
    """French messages: the banner's check (no pair of its own) says nothing of the re-worded refusal; an
    answer of another kind is any check's for the record's own pair, never a reason to place a record."""
    reworded = ("both refuse this call, in other words: “Invalid thoughtNumber: must be a number” on the "
                "original, “thoughtNumber invalide : doit être un nombre” here")
    causes = [_cause("RTE-3", ["CMP-4"], _pair(reworded))]
    banner = "stderr reads “Serveur MCP Sequential Thinking à l'écoute sur stdio” before any request"
    french = "the refusal reads “thoughtNumber invalide : doit être un nombre”"
    records = [_record("RTE-3", None, _pair(reworded), [("t::r", ["RTE-3"], french)]),
               _record("CMP-4", "RTE-3", Evidence(reproduced=False), [("t::b", [], banner)])]
    _, out = checked_explanations(causes, records)
    assert {rv.id: rv.explained_by for rv in out}["CMP-4"] is None


def test_one_guard_shown_on_either_side_is_one_cause() -> None:
    """A fork numbering from 0 accepts thought 0 (the original refuses it) and refuses -1 (the original
    accepts it): each of RTE-3 and RTE-3/a1 shows one side of one guard on `thoughtNumber`, one cause; a
    re-worded refusal of another record (the unknown tool's) stays a cause of its own."""
    negative = ("the original accepts this call and this server refuses it — “Invalid thoughtNumber: must "
                "not be negative” (isError)")
    unknown = ("both refuse this call, in other words: “Unknown tool: x” on the original, “Outil inconnu : "
               "x” here")
    guard = _cause("RTE-3", [], _pair(negative)).model_copy(update={"summary": "RTE-3 departs — -1 refused"})
    causes = [guard, _cause("RTE-3/a1", [], _pair(ZERO)), _cause("RTE-2", [], _pair(unknown))]
    records = [_record("RTE-3", None, _pair(negative), [("t::n", ["RTE-3"], "refused: thoughtNumber -1")]),
               _record("RTE-3/a1", None, _pair(ZERO), [("t::z", ["RTE-3/a1"], SAID)]),
               _record("RTE-2", None, _pair(unknown), [("t::u", ["RTE-2"], "“Outil inconnu : x”")])]
    kept, _ = checked_explanations(causes, records)
    assert [c.records for c in kept] == [["RTE-3", "RTE-3/a1"], ["RTE-2"]]
    assert kept[0].summary == "RTE-3, RTE-3/a1 depart — -1 refused"


def test_one_edit_of_the_refusals_words_is_one_cause_whatever_field() -> None:
    """Errors stringified whole: every refusal reads "Error: <message>". OBJ-8/a1 (thought refused) and
    OBJ-10 (thoughtNumber refused) show one edit, one cause; another edit (a suffix) stays apart."""
    suffix = ("the refusal of `branchId` is re-worded: this server adds “ (see docs)” after the original's "
              "“Invalid branchId: must be a string”")
    causes = [_cause("OBJ-8/a1", [], _pair(_reworded("thought"))),
              _cause("OBJ-10", [], _pair(_reworded("thoughtNumber"))), _cause("RTE-6", [], _pair(suffix))]
    fields = {"OBJ-8/a1": "thought", "OBJ-10": "thoughtNumber", "RTE-6": "branchId"}
    records = [_record(c.id, None, c.evidence, [(f"t::{c.id}", [c.id], f"{fields[c.id]} refused otherwise")])
               for c in causes]
    kept, _ = checked_explanations(causes, records)
    assert [c.records for c in kept] == [["OBJ-8/a1", "OBJ-10"], ["RTE-6"]]


def _answer(text: str, refused: bool = False) -> str:
    result: dict[str, object] = {"content": [{"type": "text", "text": text}]}
    if refused:
        result["isError"] = True
    return json.dumps({"jsonrpc": "2.0", "result": result})


def test_a_check_that_saw_refusals_is_not_shown_an_accepted_call() -> None:
    """Chat-markdown fences both its answers and its errors: OBJ-8's checks saw the error fenced; a pair of an
    accepted call shows the status fenced, another change's, and is not OBJ-8's failure; a pair of a refused
    call is."""
    fence = "result.content[0].text: 9 lines here where the original has 7; adds “```json”, “```”"
    said = ("OBJ-8 contradicted: the answer's text is not JSON: “```json ⏎ { ⏎ \"error\": \"Invalid "
            "thought\" ⏎ } ⏎ ```”")
    rv = _record("OBJ-8", None, None, [("t::e", ["OBJ-8"], said)])
    accepted = _pair(fence).model_copy(update={"original": _answer('{"thoughtNumber": 1}'),
                                               "target": _answer('```json\n{"thoughtNumber": 1}\n```')})
    refused = _pair(fence).model_copy(update={"original": _answer('{"error": "x"}', True),
                                              "target": _answer('```json\n{"error": "x"}\n```', True)})
    assert its_failure(rv, accepted).not_its_failure
    assert not its_failure(rv, refused).not_its_failure


def test_a_cause_whose_pair_is_elsewhere_goes_under_the_cause_its_check_saw() -> None:
    """Hashtags: OBJ-3/a1's own sequence shows only the box widened (another change), and its check says it
    saw the answer's `tags` key, ABS-9's difference: OBJ-3/a1 is not a cause of its own but ABS-9's. A cause
    whose check says nothing of another's keeps its own place."""
    tags = 'result.content[0].text → tags: absent on the original, ["6"] here'
    wide = "stderr: the box is 65 columns wide here, 5 wider than the original's 60"
    saw = "answer changed with bucket contents: {'thoughtNumber': 31, 'branches': [], 'tags': ['6']}"
    causes = [_cause("ABS-9", [], _pair(tags)), _cause("OBJ-3/a1", ["CLM-1"], _pair(wide, elsewhere=True))]
    records = [_record("ABS-9", None, _pair(tags), [("t::t", [], "1 field more: tags")]),
               _record("OBJ-3/a1", None, _pair(wide, elsewhere=True), [("t::b", [], saw)]),
               _record("CLM-1", "OBJ-3/a1", None, [("t::c", ["OBJ-3/a1"], "bucket contents")])]
    kept, out = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["ABS-9"] and kept[0].explains == ["OBJ-3/a1", "CLM-1"]
    assert {rv.id: rv.explained_by for rv in out} == {"ABS-9": None, "OBJ-3/a1": "ABS-9", "CLM-1": "ABS-9"}
    records[1] = _record("OBJ-3/a1", None, _pair(wide, elsewhere=True), [("t::b", [], "a bucket's thought")])
    kept, _ = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["ABS-9", "OBJ-3/a1"]


def test_a_cause_whose_checks_saw_refusals_is_not_folded_into_a_change_of_accepted_calls() -> None:
    """Chat-markdown fences answers (OBJ-4) and, apart, errors (OBJ-8): OBJ-8's pair, an accepted call, is not
    its failure, and its checks' words ("text is not JSON: “```json { "error": …”") match OBJ-4's fence only
    as words; OBJ-4's pair is a call both sides accepted, so OBJ-8 stays a cause of its own."""
    fence = "result.content[0].text: 9 lines here where the original has 7; adds “```json”, “```”"
    accepted = _pair(fence).model_copy(update={"original": _answer('{"thoughtNumber": 1}'),
                                               "target": _answer('```json\n{"thoughtNumber": 1}\n```')})
    said = ("OBJ-8 contradicted: the answer's text is not JSON: “```json ⏎ { ⏎ \"error\": \"Invalid "
            "thought\" ⏎ } ⏎ ```”")
    elsewhere = accepted.model_copy(update={"not_its_failure": True})
    causes = [_cause("OBJ-4", [], accepted), _cause("OBJ-8", [], elsewhere)]
    fenced = "the answer's text is not JSON: “```json"
    records = [_record("OBJ-4", None, accepted, [("t::a", ["OBJ-4"], fenced)]),
               _record("OBJ-8", None, elsewhere, [("t::e", ["OBJ-8"], said)])]
    kept, _ = checked_explanations(causes, records)
    assert [c.id for c in kept] == ["OBJ-4", "OBJ-8"]


@given(order=st.permutations(["thoughtNumber", "totalThoughts", "nextThoughtNeeded", "branches",
                              "thoughtHistoryLength"]))
def test_equal_json_laid_out_otherwise_is_the_failure_of_a_check_about_its_order(order: list[str]) -> None:
    """A fork writing the answer's keys sorted: its pair says "the same JSON, written one way … another way",
    which is what a check saying the fields' order saw (fork-readable-output's OBJ-4 had gone under a
    re-worded refusal's cause), and not what a check about stderr saw."""
    layout = ("result.content[0].text: the same JSON, written one way on the original, written another way "
              "here")
    said = f"an accepted call's answer has its fields in the order {', '.join(order)}"
    assert not its_failure(_record("OBJ-4", None, None, [("t::o", [], said)]), _pair(layout)).not_its_failure
    stderr = "stderr holds more than the banner and one box per accepted call"
    assert its_failure(_record("LOOP-A", None, None, [("t::s", [], stderr)]), _pair(layout)).not_its_failure


@given(rule=st.sampled_from(["Session closed: start a new session at 1", "Maximum number of branches (50) "
                             "exceeded", "Rate limit reached: retry in 2 s"]))
def test_departures_refused_by_one_stated_rule_are_one_cause_though_none_was_proposed(rule: str) -> None:
    """A fork refusing every call after a final thought: its departures show one refusal naming no field, in
    the fork's own words (a rule, not a runtime error), and become one cause even though grouping proposed
    none; a single such departure, or a crash's words ("Cannot read properties of undefined"), opens none."""
    refused = f"the original accepts this call and this server refuses it — “{rule}” (isError)"
    said = f"a call was refused: {rule}"
    rvs = [_record(rid, None, _pair(refused), [(f"t::{rid}", [], said)])
           for rid in ("RTE-4", "ABS-7", "OBJ-3")]
    causes, records = checked_explanations([], rvs)
    assert len(causes) == 1
    assert sorted([*causes[0].records, *causes[0].explains]) == ["ABS-7", "OBJ-3", "RTE-4"]
    assert {rv.explained_by for rv in records if rv.id not in causes[0].records} == {causes[0].id}
    assert checked_explanations([], rvs[:1])[0] == []
    ended = rvs[0].model_copy(update={"verdict": "error"})  # a check the target's failure ended: no departure
    assert checked_explanations([], [ended, *rvs[1:]])[1][0].explained_by is None
    crash = refused.replace(rule, "Cannot read properties of undefined (reading 'push')")
    crashed = [rv.model_copy(update={"evidence": _pair(crash)}) for rv in rvs]
    assert checked_explanations([], crashed)[0] == []
