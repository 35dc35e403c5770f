"""A record is explained by a cause only through its own checks (gate/evidence.py, issue 42, round 13): a
check naming a third record contradicted saw that record's change, so its words place nothing under another
cause. Built on the kept run of held-out-multi-7's fork-tidy-store (/work/r12-after-multi7)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.differences import FieldDifference, text_difference
from conformance.gate.evidence import _tells, checked_explanations, its_failure, unboxed_lines
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

COUNT = "result.content[0].text → thoughtHistoryLength: 2 on the original, 1 here"
BRANCHES = "result.content[0].text → branches: [] on the original, absent here"
LABEL_REFUSED = ('RTE-3 contradicted: call was refused as invalid: isError { "error": "Invalid branchId: '
                 'reuse-u already branches from thought 1", "status": "failed" }')


def _compaction(seen: int, after: int) -> str:
    return (f"ABS-11 contradicted: the shared process answered thoughtHistoryLength {seen} to a probe 0.4 s "
            f"after it answered {after} to the previous one, where the count never falls while the process "
            "lives")


def _ref(name: str, message: str, contradicted: list[str]) -> TestRef:
    return TestRef(nodeid=f"t::{name}", status="failed", examples=1, contradicted=contradicted,
                   message=message)


def _record(rid: str, evidence: Evidence | None, tests: list[TestRef], statement: str = "") -> RecordVerdict:
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[],
                         statement=statement or f"statement of {rid}", channels=["wire"], verdict="deviates",
                         evidence_before="implemented", evidence_after="observed", evidence=evidence,
                         tests=tests)


def _pair(*differences: str, not_its: bool = False) -> Evidence:
    return Evidence(reproduced=True, at="on the example's tools/call 1", differences=list(differences),
                    not_its_failure=not_its)


def _cause(rid: str, evidence: Evidence | None, summary: str) -> RootCause:
    return RootCause(id=rid, records=[rid], explains=[], summary=f"{rid} departs — {summary}",
                     evidence=None if evidence is None else evidence.model_copy(update={"cause": rid}))


@given(own=st.integers(min_value=1, max_value=3), compaction=st.integers(min_value=1, max_value=3),
       counts=st.tuples(st.integers(min_value=11, max_value=19), st.integers(min_value=20, max_value=40)))
def test_a_check_naming_a_third_record_does_not_fold_a_cause(
    own: int, compaction: int, counts: tuple[int, int]
) -> None:
    """RTE-3's own checks say a branch label was refused (the fork's label rule); its other checks name
    ABS-11 (the compaction) and quote thoughtHistoryLength, the count cause OBJ-2's field; its replayed pair
    shows only the missing branches key (another change). RTE-3 stays a cause of its own: before, the ABS-11
    checks' words folded it into OBJ-2 and the label rule went unnamed."""
    tests = ([_ref(f"label{i}", LABEL_REFUSED, ["RTE-3"]) for i in range(own)]
             + [_ref(f"probe{i}", _compaction(*counts), ["ABS-11"]) for i in range(compaction)])
    causes = [_cause("OBJ-2", _pair(COUNT), "thoughtHistoryLength is 1 after 1 more thought, not 2"),
              _cause("RTE-3", _pair(BRANCHES, not_its=True), "call was refused as invalid")]
    records = [_record("OBJ-2", _pair(COUNT), [_ref("count", "OBJ-2 contradicted: thoughtHistoryLength is 1 "
                                                     "after 1 more thought(s), not 2", ["OBJ-2"])]),
               _record("RTE-3", _pair(BRANCHES, not_its=True), tests,
                       "Four fields are checked in order and the first failure is rejected")]
    out_causes, out = checked_explanations(causes, records)
    assert [c.records for c in out_causes] == [["OBJ-2"], ["RTE-3"]]
    assert {rv.id: rv.explained_by for rv in out} == {"OBJ-2": None, "RTE-3": None}


def test_a_check_naming_the_causes_record_still_folds() -> None:
    """The rule reads a check's `contradicted`, not its words: the same words in a check naming OBJ-2 itself
    still fold RTE-3 into OBJ-2 (the check saw the count cause's change)."""
    causes = [_cause("OBJ-2", _pair(COUNT), "thoughtHistoryLength is 1 after 1 more thought, not 2"),
              _cause("RTE-3", _pair(BRANCHES, not_its=True), "count")]
    said = "OBJ-2 contradicted: thoughtHistoryLength is 1 after 1 more thought(s), not 2"
    records = [_record("OBJ-2", _pair(COUNT), [_ref("count", said, ["OBJ-2"])]),
               _record("RTE-3", _pair(BRANCHES, not_its=True), [_ref("again", said, ["OBJ-2"])])]
    out_causes, out = checked_explanations(causes, records)
    assert [c.records for c in out_causes] == [["OBJ-2"]]
    assert {rv.id: rv.explained_by for rv in out}["RTE-3"] == "OBJ-2"


BOX = ("\n┌──────────────────┐\n│ 💭 Thought 1/1 │\n├──────────────────┤\n│ a thought        │\n"
       "└──────────────────┘\n")
REPEATED = "(same thought repeated)"
HUGE = "[thought 1/1: 5000 characters, not shown]"


def _stderr(here: str) -> str:
    """A stderr pair's difference in the words a replay says it (`text_difference`, wrapped as `_compared`
    wraps it)."""
    return FieldDifference("stderr", "", "", f"stderr: {text_difference(BOX, here + chr(10))}").said()


@given(line=st.from_regex(r"[a-z][a-z ()\[\]:,/]{2,40}[a-z)\]]", fullmatch=True),
       number=st.integers(min_value=0, max_value=10**6))
def test_the_lines_written_in_the_box_place_are_read_from_the_replays_words(line: str, number: int) -> None:
    """`unboxed_lines` reads the words `text_difference` writes: a wording change there fails here, never
    silently a grouping. Numbers are masked (one notice for every thought's length); a box drawn in other
    characters is no box replaced."""
    assert unboxed_lines(_stderr(f"{line} {number}")) == {f"{line} N"}
    assert unboxed_lines(_stderr(BOX.replace("┌", "+").replace("┐", "+").strip())) == frozenset()
    assert unboxed_lines("result.content[0].text → branches: [] on the original, absent here") == frozenset()


def _box_check(here: str) -> TestRef:
    return _ref(f"box-{here[:5]}", "RTE-9 contradicted: the call was answered as accepted but no box was "
                f"written to stderr: “{here} ⏎ ”", ["RTE-9"])


@given(huge=st.permutations(["OBJ-9", "RTE-9/a1", "CMP-5"]),
       length=st.integers(min_value=4001, max_value=10**6))
def test_a_box_replaced_by_other_lines_is_another_change(huge: list[str], length: int) -> None:
    """fork-async-logger collapses a repeated box to “(same thought repeated)” and writes a huge thought as
    “[thought 1/1: N characters, not shown]”; every check of both names RTE-9. The records whose own pairs
    show the huge-thought line leave RTE-9 (the repeat's cause) for a cause of their own, its headline the
    line written in the box's place; a record whose pair shows the repeat stays under RTE-9."""
    shown = HUGE.replace("5000", str(length))
    repeat = Evidence(reproduced=True, at="on the example's tools/call 2",
                      differences=[_stderr(REPEATED)])
    big = Evidence(reproduced=True, at="on the example's tools/call 1", differences=[_stderr(shown)])
    causes = [RootCause(id="RTE-9", records=["RTE-9"], explains=["OBJ-6", *huge],
                        summary="RTE-9 departs — box", evidence=repeat.model_copy(update={"cause": "RTE-9"}))]
    records = [_record("RTE-9", repeat, [_box_check(REPEATED)]),
               _record("OBJ-6", repeat, [_box_check(REPEATED)]).model_copy(update={"explained_by": "RTE-9"}),
               *(_record(rid, big, [_box_check(shown)]).model_copy(update={"explained_by": "RTE-9"})
                 for rid in huge)]
    out_causes, out = checked_explanations(causes, records)
    by = {rv.id: rv.explained_by for rv in out}
    assert by["OBJ-6"] == "RTE-9"
    (other,) = [c for c in out_causes if c.id != "RTE-9"]
    assert other.records[0] in huge and sorted([*other.records, *other.explains]) == sorted(huge)
    assert f"“{shown}” is written in its place" in other.summary


VERIFIED = ('result.tools[0].inputSchema.properties.verified: absent on the original, {"description": '
            '"Whether this thought verifies the current hypothesis", "type": "boolean"} here')


@given(count=st.integers(min_value=1, max_value=40), other=st.sampled_from(["branches", "lines", "keys"]))
def test_a_check_counting_an_objects_keys_saw_a_key_added_to_it(count: int, other: str) -> None:
    """fork-verified-notebook: CLM-7's check says “the inputSchema has 10 properties, not 9”; its pair adds
    `verified` under `properties`. The count is that difference (CLM-7 goes under CMP-2, the property's cause,
    instead of opening a cause of its own); a count of something else is not."""
    said = f"the inputSchema has {count} properties, not {count - 1}"
    assert _tells(VERIFIED, said, strict=True)
    assert not _tells(VERIFIED, f"the inputSchema has {count} {other}, not {count - 1}", strict=True)
    pair = Evidence(reproduced=True, at="on the example's tools/list (request 3)", differences=[VERIFIED])
    causes = [_cause("CMP-2", pair, "the served tool spec differs from the original's")]
    records = [_record("CMP-2", pair, [_ref("spec", "the served tool spec differs from the original's", [])]),
               _record("CLM-7", its_failure(_record("CLM-7", None, [_ref("clm7", said, [])]), pair),
                       [_ref("clm7", said, [])])]
    out_causes, out = checked_explanations(causes, records)
    assert [c.records for c in out_causes] == [["CMP-2"]]
    assert {rv.id: rv.explained_by for rv in out}["CLM-7"] == "CMP-2"


@given(number=st.integers(min_value=1, max_value=99))
def test_a_field_is_named_by_a_checks_words_not_by_a_text_it_quotes(number: int) -> None:
    """fork-verified-notebook's OBJ-13 saw the box's header end in “✔ verified”; the schema's added `verified`
    property is not what it saw (its headline showed the schema, never the box mark). A check naming the key
    in its own words still sees it."""
    header = f"💭 Thought {number}/{number}"
    said = f"the box's header reads “{header} ✔ verified”, not “{header}” for the same call"
    assert not _tells(VERIFIED, said)
    assert _tells(VERIFIED, f"the inputSchema lists verified beside the {number} documented fields")


DROPPED = ["- Generates a solution hypothesis",
           "- Verifies the hypothesis based on the Chain of Thought steps",
           "- Repeats the process until satisfied", "- Provides a correct answer"]


def _tools(lines: list[str]) -> str:
    """A tools/list answer whose description holds `lines`, as a pair keeps it (its JSON line)."""
    description = "\n".join(["Key features:", *lines])
    return ('{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"sequentialthinking","description":'
            f'{json.dumps(description)}}}]}}}}')


@given(kept=st.integers(min_value=0, max_value=2), missing=st.sampled_from(DROPPED))
def test_a_check_quoting_a_line_one_side_lacks_saw_that_difference(kept: int, missing: str) -> None:
    """fork-compact-terminal: BAP-6's check said "lack '- Provides a correct answer'", the fourth of the lines
    CMP-2's description drops, which the pair's difference names only as "and 1 more": BAP-6 led a cause of
    its own, a second cause of one change. A check quoting a text one side's answer holds and the other's
    does not saw that difference; one quoting a text both hold (or neither) saw nothing of it."""
    shown = text_difference("\n".join(DROPPED), "\n".join(DROPPED[:kept]))
    difference = f"result.tools[0].description: {shown}"
    pair = Evidence(reproduced=True, at="on the example's tools/list (request 2)", differences=[difference],
                    original=_tools(DROPPED), target=_tools(DROPPED[:kept]))
    own = pair.model_copy(update={"not_its_failure": True})
    gone = missing if missing not in DROPPED[:kept] else DROPPED[-1]
    lacks = f"the Key-features lines the official client got lack '{gone}': {json.dumps(DROPPED[:kept])}"
    causes = [_cause("CMP-2", pair, "the served tool spec differs"), _cause("BAP-6", own, lacks)]
    records = [_record("CMP-2", pair, [_ref("spec", "the served tool spec differs", ["CMP-2"])]),
               _record("BAP-6", own, [_ref("features", lacks, [])])]
    out_causes, out = checked_explanations(causes, records)
    assert [c.records for c in out_causes] == [["CMP-2"]]
    assert {rv.id: rv.explained_by for rv in out}["BAP-6"] == "CMP-2"
    both = "the Key-features lines the official client got lack 'Key features:' and more"
    records[1] = _record("BAP-6", own, [_ref("features", both, [])])
    out_causes, _ = checked_explanations([causes[0], _cause("BAP-6", own, both)], records)
    assert [c.records for c in out_causes] == [["CMP-2"], ["BAP-6"]]


def _box(width: int, original: int) -> str:
    """A box difference as the explainer says it (the width first)."""
    way = "wider" if width > original else "narrower"
    return (f"stderr: the box is {width} columns wide here, {abs(width - original)} {way} than the "
            f"original's {original}; 6 lines on each side; changes line 2 “┌──┐” to “┌────┐”")


@given(minimum=st.integers(min_value=40, max_value=80), short=st.integers(min_value=1, max_value=30),
       cut=st.integers(min_value=100, max_value=130), long=st.integers(min_value=200, max_value=6000))
def test_a_box_cut_short_is_not_a_box_made_wider(minimum: int, short: int, cut: int, long: int) -> None:
    """fork-compact-terminal: a minimum width made short thoughts' boxes wider (CMP-5's pair) and a long
    thought was cut at 120 (OBJ-9's and RTE-9/a1's pairs: narrower than the original's); the cut rows were
    explained by the min-width cause. Widths moved apart are two changes, and the departures showing the
    box cut short together open a cause of their own."""
    wider, narrower = _box(minimum, short), _box(cut, long)
    row = f"the box's payload row is \"│ {'x' * 8}…   │\", where the thought \"{'x' * 12}\" was sent"
    causes = [_cause("CMP-5", _pair(wider), "stderr is not the box the original draws")]
    records = [_record("CMP-5", _pair(wider), [_ref("box", f"CMP-5 contradicted: {wider}", ["CMP-5"])]),
               *(_record(rid, _pair(narrower), [_ref(rid, row, [])]).model_copy(
                   update={"explained_by": "CMP-5", "reason": row}) for rid in ("OBJ-9", "RTE-9/a1"))]
    causes = [causes[0].model_copy(update={"explains": ["OBJ-9", "RTE-9/a1"]})]
    out_causes, out = checked_explanations(causes, records)
    assert [c.records for c in out_causes] == [["CMP-5"], ["OBJ-9"]]
    assert {rv.id: rv.explained_by for rv in out} == {"CMP-5": None, "OBJ-9": None, "RTE-9/a1": "OBJ-9"}


@given(marker=st.from_regex(r"[0-9a-f]{32}", fullmatch=True), other=st.sampled_from(["t", "   ", "x y"]))
def test_a_check_quoting_the_value_of_a_key_another_cause_shows_added_is_that_cause(marker: str,
                                                                                   other: str) -> None:
    """fork-annotated-thoughts: ABS-2 "an answer quotes the stored thought "…"", the text under the answer's
    `preview`, the key OBJ-4's pair shows added; its own replay drew another thought (its pair differs only
    in the preview, "elsewhere"), and it led a second cause of the one change. A check quoting, in its own
    words, the value of a key another cause shows added is that cause's; quoting a value under a key the
    original sends too is not."""
    thought = f"    ⟦{marker}⟧"
    added = 'result.content[0].text → preview: absent on the original, "t" here'
    quotes = (f'an answer quotes the stored thought "{thought}", where no route of the original returns '
              f'one: the answer {{ "thoughtNumber": 2, "preview": "{thought}", "totalThoughts": 3 }}')
    own = _pair(f'result.content[0].text → preview: absent on the original, "{other}" here', not_its=True)
    causes = [_cause("OBJ-4", _pair(added), "preview: absent on the original"), _cause("ABS-2", own, quotes)]
    records = [_record("OBJ-4", _pair(added), [_ref("keys", "OBJ-4 contradicted: 1 field more", ["OBJ-4"])]),
               _record("ABS-2", own, [_ref("quotes", quotes, [])])]
    out_causes, out = checked_explanations(causes, records)
    assert [c.records for c in out_causes] == [["OBJ-4"]]
    assert {rv.id: rv.explained_by for rv in out}["ABS-2"] == "OBJ-4"
    elsewhere = quotes.replace('"preview"', '"thoughtNumber"', 1)
    records[1] = _record("ABS-2", own, [_ref("quotes", elsewhere, [])])
    out_causes, _ = checked_explanations([causes[0], _cause("ABS-2", own, elsewhere)], records)
    assert [c.records for c in out_causes] == [["OBJ-4"], ["ABS-2"]]
