"""One refusal a fork added is one cause however its pairs say it, led by the record its own checks name
(gate/evidence.py, issue 42). held-out-multi-12's fork-strict-pointers refuses a thought number more than ten
times the total with a JSON-RPC error: OBJ-4 and CMP-1, whose checks saw "protocol error instead of a tool
result" and named no record, led one cause ("the original accepts this call and this server refuses it —
“thoughtNumber 1000000001 is more than ten times totalThoughts 2”"), and RTE-8, whose checks name RTE-8
("protocol error instead of an isError result"), led a second cause of the same words, said after the
re-test ("this server refuses first by a rule between numbered fields (“…”) where the original answers
“Cannot convert object to primitive value”")."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

CRASH = "Cannot convert object to primitive value"


def _record(rid: str, evidence: Evidence, names: list[str], message: str) -> RecordVerdict:
    test = TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=names, message=message)
    return RecordVerdict(id=rid, kind="cmp", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", evidence=evidence, tests=[test])


def _pair(difference: str, call: int) -> Evidence:
    return Evidence(reproduced=True, at=f"on the example's tools/call {call}", differences=[difference],
                    original="", target="")


def _retested(words: str, form: str) -> str:
    if form == "rule":
        said = (f"this server refuses first by a rule between numbered fields (“{words}”) where the original "
                f"answers “{CRASH}”; with `thoughtNumber` 3, `totalThoughts` 3 this server answers as the "
                "original does (re-tested on fresh calls)")
    else:
        said = (f"this server answers “{words}” where the original answers “{CRASH}”; sent alone on fresh "
                "processes, this server answers as the original does (re-tested on fresh calls)")
    return f"both refuse this call, in other words: {said}"


def _causes(number: int, total: int, again: int, form: str) -> tuple[list[RootCause], list[RecordVerdict]]:
    words = f"thoughtNumber {number} is more than ten times totalThoughts {total}"
    added = f"the original accepts this call and this server refuses it — “{words}” (JSON-RPC error -32000)"
    seen = f'protocol error instead of a tool result: JSON-RPC error -32000, "{words}"'
    named = ("RTE-8 contradicted: protocol error instead of an isError result: JSON-RPC error -32000, "
             f'"{words}"')
    first, second = _pair(added, 4), _pair(_retested(f"thoughtNumber {again} is more than ten times "
                                                     f"totalThoughts {total}", form), 5)
    causes = [RootCause(id="OBJ-4", records=["OBJ-4", "CMP-1"], explains=[],
                        summary=f"OBJ-4, CMP-1 depart — {added}",
                        evidence=first.model_copy(update={"cause": "OBJ-4"})),
              RootCause(id="RTE-8", records=["RTE-8"], explains=["RTE-8/a1"],
                        summary=f"RTE-8 departs — {second.differences[0]}",
                        evidence=second.model_copy(update={"cause": "RTE-8"}))]
    records = [_record("OBJ-4", first, [], seen), _record("CMP-1", first, [], seen),
               _record("RTE-8", second, ["RTE-8"], named),
               _record("RTE-8/a1", second, ["RTE-8"], named).model_copy(update={"explained_by": "RTE-8"})]
    return checked_explanations(causes, records)


@given(number=st.integers(11, 10**9), total=st.integers(1, 99), again=st.integers(11, 10**9),
       form=st.sampled_from(["rule", "answers"]))
def test_one_added_refusal_is_one_cause_led_by_the_record_its_checks_name(
        number: int, total: int, again: int, form: str) -> None:
    causes, records = _causes(number, total, again, form)
    assert [(c.id, c.records) for c in causes] == [("RTE-8", ["RTE-8"])]
    assert sorted(causes[0].explains) == ["CMP-1", "OBJ-4", "RTE-8/a1"]
    assert {rv.id: rv.explained_by for rv in records} == {
        "OBJ-4": "RTE-8", "CMP-1": "RTE-8", "RTE-8": None, "RTE-8/a1": "RTE-8"}
    assert causes[0].summary.startswith("RTE-8 departs — the original accepts this call and this server")


WORDS = st.sampled_from(["Cannot read properties of undefined (reading 'thought')",
                         "this.branches[validatedInput.branchId].push is not a function",
                         "Invalid thought: must be a string", "x.y is not iterable"])


@given(words=st.lists(WORDS, min_size=2, max_size=2, unique=True),
       kinds=st.sampled_from([("isError", "JSON-RPC error -32603"), ("JSON-RPC error -32603", "isError")]))
def test_refusals_alike_in_words_and_another_way_are_one_change(words: list[str],
                                                                  kinds: tuple[str, str]) -> None:
    """The catalogue's errors-as-protocol-errors: every failure thrown to the SDK, so each crash's words come
    back as a JSON-RPC error where the original answers isError. RTE-8 (its checks naming RTE-8) and OBJ-6
    (a check naming none, its crash's words holding dots) led two causes of the one change."""
    said = [f"both refuse in the same words, “{w}” as {kinds[0]} on the original, {kinds[1]} here"
            for w in words]
    pairs = [_pair(d, 1) for d in said]
    causes = [RootCause(id=rid, records=[rid], explains=[], summary=f"{rid} departs — {d}",
                        evidence=p.model_copy(update={"cause": rid}))
              for rid, d, p in zip(["RTE-8", "OBJ-6"], said, pairs, strict=True)]
    records = [_record("RTE-8", pairs[0], ["RTE-8"], f"RTE-8 contradicted: “{words[0]}”"),
               _record("OBJ-6", pairs[1], [], f"a call was answered “{words[1]}”")]
    out, verdicts = checked_explanations(causes, records)
    assert [(c.id, c.records, c.explains) for c in out] == [("RTE-8", ["RTE-8"], ["OBJ-6"])]
    assert {rv.id: rv.explained_by for rv in verdicts} == {"RTE-8": None, "OBJ-6": "RTE-8"}
