"""One numbered field moved two ways is two changes (gate/numbers_apart.py, issue 42: held-out-multi-17's
plan-counters, the process's largest total echoed to a call sending a smaller one, went under RTE-4's cause of
a revision's total left below its number, and was never a cause of its own)."""

from __future__ import annotations

from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.gate.numbers_apart import moved_alike, moved_apart, said_moved
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

_KEY: Final = st.sampled_from(["totalThoughts", "thoughtNumber", "thoughtHistoryLength"])
_SENT: Final = st.integers(min_value=1, max_value=2**31)
_WORDS: Final = (
    "{key} came back {now} for thoughtNumber {a} and totalThoughts {b}, where the original answers {b}",
    "{key} is {now} for thoughtNumber {a} and totalThoughts {b} sent, not {b}",
    "{key} is {now} for thoughtNumber={a} and totalThoughts={b} sent, not {b}",
    "RTE-4 contradicted: {key} answered {now} for thoughtNumber {a} and totalThoughts {b}; "
    "the original answers {b}",
)
STATEMENTS: Final = {
    "RTE-4": ("If thoughtNumber exceeds totalThoughts, totalThoughts is raised to thoughtNumber before "
              "anything is retained, rendered or returned; it is never lowered."),
    "OBJ-1/a1": ("totalThoughts is raised in place before the record is retained and rendered, so no channel "
                 "preserves the totalThoughts the caller sent when it was below thoughtNumber."),
    "OBJ-14": ("thoughtNumber, nextThoughtNeeded and totalThoughts in an answer echo the request "
               "(totalThoughts after upward coercion); they carry no warrant of their own."),
}


@given(key=_KEY, a=_SENT, b=_SENT, over=st.integers(min_value=1, max_value=2**40),
       words=st.sampled_from(_WORDS), up=st.booleans())
def test_a_value_outside_every_number_sent_is_read_with_its_direction(
        key: str, a: int, b: int, over: int, words: str, up: bool) -> None:
    """A check saying the field came back above (below) every number it quotes beside it moved it up (down),
    and is apart from a pair showing the field moved the other way, never from one moved its way."""
    now = max(a, b) + over if up else min(a, b) - over
    message = words.format(key=key, now=now, a=a, b=b)
    assert said_moved(message, key) == (1 if up else -1)
    assert moved_alike([message]) == (key, 1 if up else -1)
    lower, higher = (f"result.content[0].text → {key}: 12 on the original, {3 if up else 40} here",
                     f"result.content[0].text → {key}: 12 on the original, {40 if up else 3} here")
    assert moved_apart([message], lower)
    assert not moved_apart([message], higher)


@given(key=_KEY, a=_SENT, b=_SENT)
def test_a_value_among_the_numbers_sent_says_no_direction(key: str, a: int, b: int) -> None:
    """An echoed value that is one of the numbers sent (the raise to thoughtNumber) is no value from
    elsewhere."""
    message = f"{key} is {max(a, b)} for thoughtNumber {a} and totalThoughts {b} sent, not {min(a, b)}"
    assert said_moved(message, key) is None
    assert not moved_apart([message], f"result.content[0].text → {key}: 12 on the original, 3 here")


def _record(rid: str, message: str, evidence: Evidence, named: bool = False,
            explained_by: str | None = None) -> RecordVerdict:
    test = TestRef(nodeid=f"t::{rid}", status="failed", examples=1, message=message,
                   contradicted=[rid] if named else [])
    return RecordVerdict(id=rid, kind="obj", aliases=[], anchors=[], statement=STATEMENTS.get(rid, "s"),
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", explained_by=explained_by, evidence=evidence,
                         reason=message, tests=[test])


@given(a=st.integers(min_value=1, max_value=50), over=st.integers(min_value=1, max_value=2**40),
       others=st.sets(st.sampled_from(["RTE-5", "RTE-7", "CLM-4", "ABS-8"]), min_size=1))
def test_departures_seeing_the_field_echoed_higher_leave_the_cause_of_it_lowered(
        a: int, over: int, others: set[str]) -> None:
    """RTE-4's pair shows a revision's total lowered (12 on the original, 3 here); the departures it was
    proposed for saw the total answered above every number their calls sent, on the shared process (their own
    replays show another change): they open a cause of their own, led by OBJ-14, which states the total is
    echoed from the request, not by OBJ-1/a1 before it in the catalog."""
    lowered = Evidence(reproduced=True, at="on the example's tools/call 2", original_spec="npm:0.6.2",
                       example=["{}"], cause="RTE-4",
                       differences=["result.content[0].text → totalThoughts: 12 on the original, 3 here"])
    elsewhere = Evidence(reproduced=True, at="on the example's tools/call 1", original_spec="npm:0.6.2",
                         example=["{}"], not_its_failure=True,
                         differences=["result.content[0].text → thoughtHistoryLength: 1 on the original, "
                                      "0 here"])
    seen = f"totalThoughts is {a + over} for thoughtNumber {a} and totalThoughts {a} sent, not {a}"
    explained = ["OBJ-1/a1", "OBJ-14", *sorted(others)]
    header = "RTE-4 contradicted: the header reads “🔄 Revision 12/3”"
    records = [_record("RTE-4", header, lowered, named=True),
               *(_record(rid, seen, elsewhere, explained_by="RTE-4") for rid in explained)]
    cause = RootCause(id="RTE-4", records=["RTE-4"], explains=explained, evidence=lowered,
                      summary=f"RTE-4 departs — {lowered.headline()}")
    causes, out = checked_explanations([cause], records)
    by_id = {c.id: c for c in causes}
    assert by_id["RTE-4"].explains == [], [c.summary for c in causes]
    assert sorted(by_id["OBJ-14"].explains) == sorted(r for r in explained if r != "OBJ-14")
    assert by_id["OBJ-14"].summary.startswith(f"OBJ-14 departs — {seen}")
    assert {rv.id: rv.explained_by for rv in out} == {
        "RTE-4": None, "OBJ-14": None, **{r: "OBJ-14" for r in explained if r != "OBJ-14"}}
