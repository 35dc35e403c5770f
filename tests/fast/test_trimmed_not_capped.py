"""A count that stops rising because items leave is no cap (issue 42, fork-memory-budget: "the history stops
growing at 471 thoughts" where the same run answered 278 after 410): once any line of a run shows the count
falling, every line of the count is one trimmed store, one cause, whose headline says the fall and never a
cap; without a fall, a count held at one value is still the cap it was."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.caps import TRIMMED, fell, trimmed_headline
from conformance.gate.evidence import _caps_met, held_by_caps
from tests.verdicts import cause, departing

counts = st.integers(min_value=2, max_value=10**6)


def _fall(before: int, after: int) -> str:
    """ABS-11's line, as the shared session's probe writes it (suite/session.py)."""
    return (f"ABS-11 contradicted: the shared process answered thoughtHistoryLength {after} to a probe 0.6 s "
            f"after it answered {before} to the previous one, where the count never falls while the process "
            "lives")


def _held(n: int) -> str:
    return (f"OBJ-2 contradicted: an accepted call left thoughtHistoryLength at {n}, where each accepted "
            f'call adds one: the answer {{ "thoughtNumber": 2, "thoughtHistoryLength": {n} }}')




falls = st.tuples(counts, counts).filter(lambda p: p[1] < p[0])


@given(fall=falls, n=counts)
def test_a_count_that_fell_makes_every_count_line_one_trimmed_store(fall: tuple[int, int], n: int) -> None:
    records = [departing("ABS-11", _fall(*fall)), departing("OBJ-2", _held(n)),
               departing("OBJ-14", _held(n)), departing("RTE-7", _held(n)),
               departing("OBJ-4", "historyCharacters: absent on the original")]
    assert fell(_fall(*fall)) == fall
    assert {k: [rv.id for rv in v] for k, v in _caps_met(records).items()} == {
        TRIMMED: ["ABS-11", "OBJ-2", "OBJ-14", "RTE-7"]}
    assert list(_caps_met(records[1:])) == [f"the count stops at {n}"]  # no fall: the cap it was
    said = trimmed_headline([rv.reason for rv in records])
    assert f"fell from {fall[0]} to {fall[1]}" in said and f"left it at {n}" in said
    assert "stops growing" not in said and "cap" not in said


@given(fall=falls, n=counts)
def test_causes_led_by_one_trimmed_count_are_onecause(fall: tuple[int, int], n: int) -> None:
    """ABS-11, OBJ-2 and OBJ-14 each led a cause of the one trimmed history: three "root causes" of one
    change. One stays, the others' records and departures explained by it; the other change keeps its own."""
    records = [departing("OBJ-4", "historyCharacters: absent on the original, 1 here"),
               departing("ABS-11", _fall(*fall)), departing("OBJ-2", _held(n)),
               departing("OBJ-14", _held(n)), departing("RTE-7", _held(n))]
    causes = [cause("OBJ-4", [], records[0].reason), cause("ABS-11", [], records[1].reason),
              cause("OBJ-2", [], records[2].reason),
              cause("OBJ-14", ["RTE-7"], "the history stops growing")]
    out, verdicts = held_by_caps(causes, [rv.model_copy(update={"explained_by": "OBJ-14" if rv.id == "RTE-7"
                                                                 else None}) for rv in records])
    assert [c.records for c in out] == [["OBJ-4"], ["ABS-11"]]
    trimmed = out[1]
    assert sorted(trimmed.explains) == ["OBJ-14", "OBJ-2", "RTE-7"]
    assert {rv.id: rv.explained_by for rv in verdicts if rv.id != "OBJ-4" and rv.id != "ABS-11"} == {
        "OBJ-2": "ABS-11", "OBJ-14": "ABS-11", "RTE-7": "ABS-11"}
    assert "drops thoughts" in trimmed.summary and "stops growing" not in trimmed.summary


def _unrisen(due: int, got: int) -> str:
    """suite/store_model.py's line: the count due adds every call accepted since the last count."""
    return (f"OBJ-2 contradicted: the failed call was not retained (or left a label): the probe call reports "
            f"thoughtHistoryLength {got}, not {due} after the calls accepted so far")


@given(start=counts, since=st.integers(min_value=2, max_value=50),
       rose=st.integers(min_value=0, max_value=50))
def test_a_count_that_did_not_rise_for_several_calls_never_fell(start: int, since: int, rose: int) -> None:
    """held-out-multi-13's history keyed by thoughtNumber: two calls accepted since the last count (78), the
    count still 78; "78, not 80 after the calls accepted so far" was said as a fall from 79 to 78. A line
    that says only the count due, not the count before, shows no fall."""
    got = start + min(rose, since - 1)
    assert fell(_unrisen(start + since, got)) is None


@given(start=counts, got=counts)
def test_a_count_below_the_count_a_line_says_it_started_from_fell(start: int, got: int) -> None:
    line = (f"OBJ-2 contradicted: thoughtHistoryLength is {got} after accepted call 1 of 2 from {start}, "
            f"not {start + 1}: the answer {{ \"thoughtHistoryLength\": {got} }}")
    assert fell(line) == ((start, got) if got < start else None)
