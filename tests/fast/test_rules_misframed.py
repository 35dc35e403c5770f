"""Rules said as what they are (issue 42, held-out-multi-14): a bound on calls within a time is said as one
(gate/caps.py `cap_headline`; gateway's “Rate limit exceeded: at most 40 calls in 5 seconds” read as a store
size bound), a departure whose own pair is refused in a bound's words goes under the bound's cause
(gate/evidence.py `under_bounds`; its bursts were two loose departures), and a count one short after a late
failure is that call not retained, no cap (`cap_seen`; branch-workspaces' "the history stops growing at
2")."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.caps import cap_headline, cap_seen
from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

TIMES = st.sampled_from(["in 5 seconds", "per second", "per minute", "within 10s", "every 2 minutes",
                         "in 500 ms"])
SIZES = st.sampled_from(["Maximum number of branches (50) exceeded", "History full: 1000 thoughts",
                         "Session limit reached in this process", "Too many labels"])


@given(count=st.integers(1, 500), time=TIMES, head=st.sampled_from(["Rate limit exceeded", "Slow down",
                                                                    "Too many calls"]))
def test_a_bound_over_time_is_no_store_size(count: int, time: str, head: str) -> None:
    words = f"{head}: at most {count} calls {time}"
    said = cap_headline(f"refused by the bound “{words}”")
    assert f"“{words}”" in said
    assert "a limit on calls within a time" in said
    assert "size bound" not in said and "filled" not in said


@given(words=SIZES)
def test_a_bound_on_the_store_keeps_its_words(words: str) -> None:
    said = cap_headline(f"refused by the bound “{words}”")
    assert "within a time" not in said


def _record(rid: str, message: str, evidence: Evidence | None) -> RecordVerdict:
    refs = [TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=[], message=message),
            TestRef(nodeid=f"t::{rid}-passing", status="passed", examples=1, contradicted=[], message="")]
    return RecordVerdict(id=rid, kind="amendment" if "/" in rid else "rte", aliases=[], anchors=[],
                         statement=f"statement of {rid}", channels=["wire"], verdict="deviates",
                         evidence_before="implemented", evidence_after="observed", evidence=evidence,
                         tests=refs, reason=message)


@given(words=st.sampled_from(["Rate limit exceeded: at most 40 calls in 5 seconds",
                              "Maximum number of branches (50) exceeded"]))
def test_a_loose_departure_refused_in_a_bounds_words_is_the_bounds(words: str) -> None:
    """OBJ-1/a1's check failed in a burst and passed when run again; the fixed opening calls, replayed, were
    refused in the bound's words: it goes under the bound's cause. One refused in other words stays loose."""
    refused = f"the original accepts this call and this server refuses it — “{words}” (isError)"
    pair = Evidence(reproduced=True, at="on the example's tools/call 41", differences=[refused])
    bound = _record("RTE-5", f'call was refused by a bound, "{words}"', pair)
    cause = RootCause(id="RTE-5", records=["RTE-5"], explains=[], summary=f"RTE-5 departs — {words}",
                      evidence=pair)
    again = "its example failed on the shared process, then passed when run again there"
    other = Evidence(reproduced=True, at="on the example's tools/call 2", differences=[
        "the original accepts this call and this server refuses it — “Invalid thought: too long” (isError)"])
    opening = ("its own sequence did not reproduce (10 frames from “store machine”: no difference of this "
               "record's on fresh processes); the fixed opening calls on a fresh process do")
    # Its check's words ("passed when run again") say no refusal: the pair is not its failure, and it is the
    # pair alone, refused in the bound's words, that places it.
    loose = {"why": opening, "not_its_failure": True}
    records = [bound, _record("OBJ-1/a1", again, pair.model_copy(update=loose)),
               _record("RTE-4", again, other.model_copy(update=loose))]
    _, out = checked_explanations([cause], records)
    placed = {rv.id: rv.explained_by for rv in out}
    assert placed["OBJ-1/a1"] == "RTE-5"
    assert placed["RTE-4"] is None


@given(count=st.integers(2, 5000))
def test_a_count_short_after_a_late_failure_is_no_cap(count: int) -> None:
    """The same words but for the check's context: read after a late failure, one short is that call refused
    before the append; read after accepted calls alone, a count that stopped."""
    said = (f"OBJ-2 contradicted: label or thought missing after the late failure: the probe call reports "
            f"thoughtHistoryLength {count}, not {count + 1} and branches without [\"k\"] after the calls "
            f"accepted so far")
    assert cap_seen(said) == ""
    plain = f"OBJ-2 contradicted: the probe call reports thoughtHistoryLength {count}, not {count + 1}"
    assert cap_seen(plain) == f"the count stops at {count}"
