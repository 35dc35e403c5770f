"""One difference, one cause (gate/one_difference.py, gate/evidence.py `one_cause_per_change`, issue 42):
two causes whose pairs refuse the same field's same value, or move one field's text by one named
transform, are one change; a check saying the answer lacks a key saw a pair dropping it, not one adding it
(held-out-multi-14's typed-arguments, multilingual and rich-results)."""

from __future__ import annotations

import json
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.guards import GUARD_REFUSALS
from conformance.gate.evidence import checked_explanations, one_cause_per_change
from conformance.gate.one_difference import TRANSFORMS, transforms_of
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef


def _call(number: int, **arguments: object) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call",
                       "params": {"name": "sequentialthinking", "arguments": arguments}})


def _record(rid: str, evidence: Evidence | None = None, message: str = "it failed here somehow",
            explained_by: str | None = None, contradicted: list[str] | None = None) -> RecordVerdict:
    refs = [TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=contradicted or [],
                    message=message)]
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", explained_by=explained_by, evidence=evidence, tests=refs,
                         reason=message)


def _cause(rid: str, difference: str, frames: list[str], explains: list[str] | None = None) -> RootCause:
    evidence = Evidence(reproduced=True, at=f"on the example's tools/call {len(frames)}",
                        differences=[difference], cause=rid)
    return RootCause(id=rid, records=[rid], explains=explains or [], summary=f"{rid} departs — {difference}",
                     example=frames, evidence=evidence)


ACCEPTED = "the original accepts this call and this server refuses it — “{words}” (isError)"
CRASHED = ("both refuse this call, in other words: “Cannot convert object to primitive value” on the "
           "original (a runtime error), “{words}” here")


@given(field=st.sampled_from(sorted(GUARD_REFUSALS)),
       value=st.sampled_from(["   ", "\t", 1.5, "x·y"]), other=st.sampled_from(["\n", 2.5, "z"]))
def test_the_same_value_newly_refused_is_one_cause_led_by_the_plain_pair(
        field: str, value: object, other: object) -> None:
    """The original's guard words, newly said for one field's one value, where the original accepted the call
    and where it crashed on another field beside it: one cause, headed by the pair where the original
    accepts; its guard words for another value of the field, or another field's, stay apart (those words
    alone are the original's, no change's), but for a thought whitespace-only like the first, which one
    transform (whitespace trimmed) turns into what the guard refuses: that rule shows on both."""
    words = GUARD_REFUSALS[field]
    beside = {field: value, "branchFromThought": {"toString": 1}}
    crashed = _cause("RTE-8/a1", CRASHED.format(words=words), [_call(1, thought="a"), _call(2, **beside)])
    plain = _cause("RTE-3/a1", ACCEPTED.format(words=words),
                   [_call(1, thought="b"), _call(2, **{field: value})])
    records = [_record("RTE-8/a1"), _record("RTE-3/a1")]
    causes, _ = one_cause_per_change([crashed, plain], records)
    assert [c.records for c in causes] == [["RTE-3/a1", "RTE-8/a1"]]
    assert causes[0].summary.startswith("RTE-3/a1, RTE-8/a1 depart — the original accepts this call")
    if other != value:
        apart = _cause("RTE-3/a1", ACCEPTED.format(words=words), [_call(1, **{field: other})])
        causes, _ = one_cause_per_change([crashed, apart], records)
        trimmed = field == "thought" and all(isinstance(v, str) and not v.strip() for v in (value, other))
        assert len(causes) == (1 if trimmed else 2)
    another = next(f for f in sorted(GUARD_REFUSALS) if f != field)
    elsewhere = _cause("RTE-3/a1", ACCEPTED.format(words=GUARD_REFUSALS[another]),
                       [_call(1, **{another: value})])
    causes, _ = one_cause_per_change([crashed, elsewhere], records)
    assert len(causes) == 2


_LABELS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1,
                  max_size=12)


@given(one=_LABELS, other=_LABELS, transform=st.sampled_from(TRANSFORMS))
def test_one_field_moved_by_one_transform_is_one_cause(
        one: str, other: str, transform: tuple[str, object]) -> None:
    """Two labels answered transformed alike (NFKC, a case mapping, whitespace, accents) at one field: one
    cause, whichever two labels showed it; a label with text added is no transform, and stays apart."""
    name, apply = transform
    assert callable(apply)
    moved = [(label, apply(label)) for label in (one, other)]
    if any(theirs == ours or "”" in theirs + ours for theirs, ours in moved):
        return
    assert name in transforms_of(*moved[0])
    pairs = [f"result.content[0].text → branches[{i}]: “{theirs}” on the original, “{ours}” here"
             for i, (theirs, ours) in enumerate(moved)]
    records = [_record("OBJ-4/a1"), _record("RTE-6")]
    causes, _ = one_cause_per_change([_cause("OBJ-4/a1", pairs[0], [_call(1)]),
                                      _cause("RTE-6", pairs[1], [_call(1)])], records)
    assert [c.records for c in causes] == [["OBJ-4/a1", "RTE-6"]]
    added = f"result.content[0].text → branches[0]: “{one}” on the original, “{one}·tag” here"
    causes, _ = one_cause_per_change([_cause("OBJ-4/a1", pairs[0], [_call(1)]),
                                      _cause("RTE-6", added, [_call(1)])], records)
    assert len(causes) == 2


def test_nfkc_labels_of_held_out_multi_14() -> None:
    """The two labels multilingual's run showed: mathematical bold letters and a Fraktur capital."""
    assert "NFKC-normalised" in transforms_of("𝐓𝐡𝐞 𝐪𝐮𝐢𝐜𝐤·2fa037ff", "The quick·2fa037ff")
    assert "NFKC-normalised" in transforms_of("é\\ufeffÅ𝔘", "é\\ufeffÅU")
    assert transforms_of("abc", "abc") == frozenset()
    assert transforms_of("abc", "abd") == frozenset()
    assert unicodedata.normalize("NFKC", "𝔘") == "U"


NO_KEY = "no key 'thoughtHistoryLength' where the check read one (it is at `session.thoughtHistoryLength`)"


@given(said=st.sampled_from([NO_KEY, "no thoughtHistoryLength at the top level (it is at "
                                      "`session.thoughtHistoryLength`) through the official client"]))
def test_a_key_lacking_is_under_the_pair_dropping_it_not_the_one_adding_it(said: str) -> None:
    """rich-results: the failures gained the count (OBJ-8's pair: absent on the original, 0 here) and the
    accepted answers nested it under `session` (OBJ-4's: the count on the original, absent here). A record
    whose check says its answer lacks the count is the nesting's, whichever cause the grouping proposed."""
    nested = Evidence(reproduced=True, at="on the example's tools/call 1", cause="OBJ-4", differences=[
        "result.content[0].text → branches: [] on the original, absent here",
        "result.content[0].text → thoughtHistoryLength: 1 on the original, absent here"],
        original='{"thoughtHistoryLength": 1, "branches": []}',
        target='{"session": {"thoughtHistoryLength": 1, "branches": []}}')
    counted = Evidence(reproduced=True, at="on the example's tools/call 1", cause="OBJ-8", differences=[
        "result.content[0].text → thoughtHistoryLength: absent on the original, 0 here"],
        original='{"error": "Invalid thought: must be a string"}',
        target='{"error": "Invalid thought: must be a string", "thoughtHistoryLength": 0}')
    causes = [RootCause(id="OBJ-4", records=["OBJ-4"], explains=[], summary="OBJ-4 departs", evidence=nested),
              RootCause(id="OBJ-8", records=["OBJ-8"], explains=["CMP-3"], summary="OBJ-8 departs",
                        evidence=counted)]
    own = Evidence(reproduced=True, at="on the example's tools/call 1", not_its_failure=True,
                   differences=["result.content: [1] on the original, [1, 2] here"])
    records = [_record("OBJ-4", nested, "the answer has no branches key"),
               _record("OBJ-8", counted, "a refusal carries thoughtHistoryLength"),
               _record("CMP-3", own, said, explained_by="OBJ-8")]
    _, out = checked_explanations(causes, records)
    assert {rv.id: rv.explained_by for rv in out}["CMP-3"] == "OBJ-4"


def test_a_key_dropped_by_its_own_pair_is_not_the_cause_adding_it_but_the_move() -> None:
    """The record's own pair now shows its failure (the count absent here, as its check says, moved under
    `session`): not the failures' count cause (the count added there), but the nesting's, whose pair adds
    `session` beside dropping `branches`."""
    nested = Evidence(reproduced=True, at="on the example's tools/call 1", cause="OBJ-4", differences=[
        "result.content[0].text → branches: [] on the original, absent here",
        "result.content[0].text → thoughtHistoryLength: 1 on the original, absent here",
        'result.content[0].text → session: absent on the original, {"branches": [], '
        '"thoughtHistoryLength": 1} here'])
    counted = Evidence(reproduced=True, at="on the example's tools/call 1", cause="OBJ-8", differences=[
        "result.content[0].text → thoughtHistoryLength: absent on the original, 0 here"])
    causes = [RootCause(id="OBJ-4", records=["OBJ-4"], explains=[], summary="OBJ-4 departs — branches: [] on "
                        "the original, absent here; and 1 more beside it: session", evidence=nested),
              RootCause(id="OBJ-8", records=["OBJ-8"], explains=["OBJ-2"], summary="OBJ-8 departs",
                        evidence=counted)]
    own = Evidence(reproduced=True, at="on the example's tools/call 1", differences=[
        "result.content[0].text → thoughtHistoryLength: 1 on the original, absent here"])
    records = [_record("OBJ-4", nested, "the answer has no branches key"),
               _record("OBJ-8", counted, "a refusal carries thoughtHistoryLength"),
               _record("OBJ-2", own, NO_KEY, explained_by="OBJ-8")]
    kept, out = checked_explanations(causes, records)
    assert {rv.id: rv.explained_by for rv in out}["OBJ-2"] == "OBJ-4"
    assert [c.id for c in kept] == ["OBJ-4", "OBJ-8"]


_WORDS = st.lists(st.text(alphabet="abcdefghij", min_size=4, max_size=8), min_size=2, max_size=4)


@given(words=_WORDS, blank=st.sampled_from(["   ", "\t", " \n ", "  \t  "]), order=st.permutations([0, 1, 2]))
def test_a_text_collapsed_before_use_is_one_cause_whatever_shows_it(
        words: list[str], blank: str, order: list[int]) -> None:
    """held-out-multi-14's typed-arguments collapses a thought's whitespace before using it: a two-line
    thought is boxed on one row (RTE-9/a1), a whitespace-only one refused in the original's guard words
    where the original accepts it (RTE-3/a1) and where it crashed on another field (RTE-8/a1). No answer
    echoes the thought, so the box line and the value refused show the transform: one cause, in whatever
    order the three come (before: the box a cause of its own). A box drawing the thought as sent is no
    transform, and stays apart."""
    thought = "\n".join(words)
    row = " ".join(words)
    box = (f"stderr: 6 lines here where the original has 7; changes line 5 “│ {words[0]}” to “│ {row}   │”")
    words_ = GUARD_REFUSALS["thought"]
    causes = [_cause("RTE-9/a1", box, [_call(1, thought=thought, thoughtNumber=1)]),
              _cause("RTE-3/a1", ACCEPTED.format(words=words_), [_call(1, thought=blank)]),
              _cause("RTE-8/a1", CRASHED.format(words=words_),
                     [_call(1, thought=blank, branchFromThought={"toString": 1})])]
    records = [_record(c.id) for c in causes]
    merged, _ = one_cause_per_change([causes[i] for i in order], records)
    assert len(merged) == 1 and sorted(merged[0].records) == ["RTE-3/a1", "RTE-8/a1", "RTE-9/a1"], [
        c.records for c in merged]
    verbatim = _cause("RTE-9/a1", f"stderr: 6 lines on each side; changes line 5 “│ {words[0]}” to "
                      f"“│ {words[0]} ✔”", [_call(1, thought=thought, thoughtNumber=1)])
    merged, _ = one_cause_per_change([verbatim, causes[1]], records)
    assert len(merged) == 2
