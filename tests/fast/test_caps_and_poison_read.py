"""The words a cap and a poisoned process leave in record lines, read as one key per cap or crash (issue 42:
nalyk-ts' 1,000-thought history and 50-branch caps, bartoszkula-ts' process poisoned by a prototype label):
every line the suite writes of a count held at N names the cap at N, a count that moved otherwise names none,
and a refusal's words are a crash's only when they are a runtime error's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.caps import cap_seen
from conformance.gate.evidence import _caps_met, _crash_refusal
from conformance.report.model import RecordVerdict
from tests.verdicts import departing

counts = st.integers(min_value=2, max_value=10**6)


def _lines(n: int) -> list[str]:
    """Every form the suite's checks say a count held at `n` in (suite/answers.py, test_store.py)."""
    answer = f'{{ "thoughtNumber": 1, "totalThoughts": 1, "thoughtHistoryLength": {n} }}'
    return [
        f"OBJ-2 contradicted: an accepted call left thoughtHistoryLength at {n}, where each accepted call "
        f"adds one: the answer {answer}",
        f"OBJ-2 contradicted: rejected call changed the store (thought): the probe call reports "
        f"thoughtHistoryLength {n}, not {n + 1} after the calls accepted so far",
        f"after 1 accepted calls, thoughtHistoryLength {n + 1} was due (the original keeps every thought and "
        f"label): the answer {answer}",
        f"OBJ-2 contradicted: thoughtHistoryLength is {n} after 1 calls filed under 'reuse-u' from {n}, not "
        f"{n + 1}: the answer {answer}",
        f"the count {n} became {n}",
    ]


@given(n=counts)
def test_every_line_of_a_count_held_at_n_names_one_cap(n: int) -> None:
    assert {cap_seen(line) for line in _lines(n)} == {f"the count stops at {n}"}


@given(n=counts, step=st.integers(min_value=2, max_value=50))
def test_a_count_that_moved_by_more_than_one_or_fell_is_no_cap(n: int, step: int) -> None:
    assert cap_seen(f"thoughtHistoryLength is {n + step} after an accepted call, not {n + 1}, one more than "
                    f"before it") == ""
    assert cap_seen(f"the probe call reports thoughtHistoryLength {n}, not {n + step} after the calls") == ""
    assert cap_seen(f"the count {n + step} became {n}") == ""


@given(limit=st.integers(min_value=1, max_value=10**4))
def test_a_bound_keeps_its_number(limit: int) -> None:
    line = (f'RTE-5 contradicted: the call was refused by a bound, "Maximum number of branches ({limit}) '
            f'exceeded", where the original\'s store has no size bound')
    assert cap_seen(line) == f"refused by the bound “Maximum number of branches ({limit}) exceeded”"
    assert cap_seen(line.replace(f"({limit})", f"({limit + 1})")) != cap_seen(line)



@given(held=st.lists(counts, min_size=2, max_size=5, unique=True))
def test_counts_held_at_several_values_are_no_cap(held: list[int]) -> None:
    """A store that appends only some calls (a revision replacing its thought) holds its count wherever it
    was: at 486 here, 2863 there. No cap is read from such lines; one value everywhere is one."""
    lines = [departing(f"R{i}", _lines(n)[0]) for i, n in enumerate(held)]
    assert _caps_met(lines) == {}
    same = [departing(f"R{i}", _lines(held[0])[i % 5]) for i in range(len(held))]
    assert list(_caps_met(same)) == [f"the count stops at {held[0]}"]


PUSH = "branches[thought.branchId].push is not a function"


@given(count=st.integers(min_value=0, max_value=99))
def test_a_crash_is_read_alike_whichever_way_a_line_quotes_it(count: int) -> None:
    quoted = [f"call was rejected: isError “{PUSH}”",
              f'call was rejected: isError {{ "error": "{PUSH}", "status": "failed" }}',
              f'the official client got an error result, isError “{{ ⏎   "error": "{PUSH}", ⏎   "status": '
              f'"failed" ⏎ }}”, for {{"thought": "t"}}, a call the original accepts']
    assert {_crash_refusal(line) for line in quoted} == {PUSH}
    assert _crash_refusal(f'call was rejected: isError “Invalid count value: -{count}”') == ""
    assert _crash_refusal("call was rejected: isError “Invalid thought: must be a string”") == ""


REWORDED = ("the refusal of `thought` is re-worded: “Invalid thought: must be a string” on the original, "
            "“Invalid thought: must be a non-empty string” here")
KEY = 'result.content[0].text → currentSequenceId: absent on the original, null here'


def _held(rid: str, line: str, contradicted: list[str], first: str, *, its_failure: bool) -> RecordVerdict:
    """A departure whose one failing check said `line`, its own pair leading with `first`."""
    from conformance.report.model import Evidence, TestRef

    return departing(rid, line).model_copy(update={
        "tests": [TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=contradicted,
                          message=line)],
        "evidence": Evidence(reproduced=True, at="on the example's tools/call 1", differences=[first],
                             not_its_failure=not its_failure)})


@given(n=st.integers(min_value=2, max_value=5000))
def test_a_history_cap_stays_a_cause_beside_a_reworded_guard(n: int) -> None:
    """nalyk-ts: the 1,000-thought cap's cause, whose short pair shows only an added key, was folded into the
    re-worded thought refusal's because its probe's line says "(thought)"; its records went with it."""
    from conformance.gate.evidence import checked_explanations
    from conformance.report.model import RootCause

    probe = (f"OBJ-2 contradicted: rejected call changed the store (thought): the probe call reports "
             f"thoughtHistoryLength {n}, not {n + 1} after the calls accepted so far")
    records = [
        _held("OBJ-2", probe, ["OBJ-2"], KEY, its_failure=False),
        _held("OBJ-14", _lines(n)[0], ["OBJ-2"], KEY, its_failure=False),
        _held("ABS-11", _lines(n)[2], [], KEY, its_failure=False),
        _held("RTE-8", "refused with “Invalid thought: must be a non-empty string”", [], REWORDED,
              its_failure=True),
    ]
    causes = [RootCause(id=rv.id, records=[rv.id], explains=explains, evidence=rv.evidence,
                        summary=f"{rv.id} departs — {rv.reason}")
              for rv, explains in ((records[0], ["OBJ-14", "ABS-11"]), (records[3], []))]
    kept, out = checked_explanations(causes, records)
    by = {rv.id: rv.explained_by for rv in out}
    assert [c.id for c in kept] == ["OBJ-2", "RTE-8"], [c.summary for c in kept]
    assert by == {"OBJ-2": None, "OBJ-14": "OBJ-2", "ABS-11": "OBJ-2", "RTE-8": None}
    assert f"stops growing at {n}" in kept[0].summary
