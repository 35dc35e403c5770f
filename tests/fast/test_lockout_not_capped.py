"""A count short because a refused call was not retained is no cap (held-out-multi-9's fork-model-guard:
after three refused calls the fork refuses the next, a call the original retains after it fails; OBJ-2's
append check then read one short and the run said "the history stops growing at 2011 thoughts", FALSE:
every accepted call was appended). The store model says so in the line, and `gate/caps` reads that line as
no cap; a count left where it was by an accepted call is still the cap it was (test_fork_classes' cap of
40)."""

from __future__ import annotations

from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.store import StoreState
from conformance.core.jsontypes import JSON
from conformance.gate.caps import cap_headline, cap_seen
from conformance.gate.evidence import under_bounds
from conformance.report.model import Evidence, RootCause
from conformance.suite.store_model import StoreModel
from tests.verdicts import cause, departing

VALID: Final[dict[str, JSON]] = {
    "thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": True}


@given(n=st.integers(min_value=2, max_value=10**6), late=st.integers(min_value=1, max_value=3))
def test_a_count_short_by_calls_failed_late_is_no_cap(n: int, late: int) -> None:
    model = StoreModel(count=n, labels=())
    for _ in range(late):
        model.retained_after_failure()
    model.accept(VALID)
    found = StoreState(n + 1, ())  # the accepted call appended; the late failures were not retained
    line = f"OBJ-2 contradicted: the answer {{ }}: {model.unlike(found, 'the call')}"
    assert "not retained" in line
    if late == 1:  # one short: the line the cap reader took for a count stopped at n + 1
        assert f"thoughtHistoryLength {n + 1}, not {n + 2}" in line
    assert cap_seen(line) == ""


@given(n=st.integers(min_value=2, max_value=10**6))
def test_a_count_an_accepted_call_left_where_it_was_is_still_a_cap(n: int) -> None:
    model = StoreModel(count=n, labels=())
    model.accept(VALID)
    line = f"OBJ-2 contradicted: the answer {{ }}: {model.unlike(StoreState(n, ()), 'the probe call')}"
    assert "not retained" not in line
    assert cap_seen(line) == f"the count stops at {n}"


@given(n=st.integers(min_value=2, max_value=10**6))
def test_a_late_failure_retained_and_the_next_call_dropped_is_not_said_unretained(n: int) -> None:
    # Two short after a late failure: not the count the accepted calls alone make; nothing is claimed.
    model = StoreModel(count=n, labels=())
    model.retained_after_failure()
    model.accept(VALID)
    assert "not retained" not in model.unlike(StoreState(n, ()), "the call")


def _refused(words: str) -> str:
    """RTE-5's line for a valid call refused in a bound's words (suite/answers.expect_no_bound)."""
    return (f'RTE-5 contradicted: the call was refused by a bound, "{words}", where the original\'s store '
            f'has no size bound and refuses only what its four guards refuse: isError {{ "error": '
            f'"{words}" }}')


@given(words=st.sampled_from(["Too many invalid calls in a row: this call was not processed",
                              "Too many consecutive failed calls", "Too many failed attempts, try later"]))
def test_a_bound_on_refused_calls_is_no_store_filled(words: str) -> None:
    key = cap_seen(_refused(words))
    assert key == f"refused by the bound “{words}”"
    told = cap_headline(key)
    assert words in told and "after refused calls" in told
    assert "size bound" not in told and "filled" not in told


def test_a_bound_on_the_store_is_still_said_filled() -> None:
    told = cap_headline(cap_seen(_refused("Maximum number of thoughts (100) exceeded")))
    assert "size bound" in told and "after refused calls" not in told


LOCKOUT: Final = "Too many invalid calls in a row: this call was not processed"


def _paired(rid: str, first: str) -> RootCause:
    return cause(rid, [], first).model_copy(update={"evidence": Evidence(
        reproduced=True, at="on the example's tools/call 6", differences=[first])})


@given(n=st.integers(min_value=2, max_value=10**6), capped=st.booleans())
def test_a_cause_whose_pair_is_a_bounds_refusal_goes_under_the_bound(n: int, capped: bool) -> None:
    # The lockout's OBJ-2 (no cap: the refused call was not retained) reproduced as the bound's refusal: one
    # change with RTE-5's bound. A real cap whose pair shows another bound's refusal (test_fork_classes' count
    # stopped at 40 beside the branch bound) keeps its own cause.
    unretained = (": the count the accepted calls alone make, the 1 call since the last count answered that "
                  "the original retains though it fails (after validation) not retained")
    line = (f"OBJ-2 contradicted: the answer {{ }}: the call reports thoughtHistoryLength {n}, not {n + 1} "
            f"after the calls accepted so far{'' if capped else unretained}")
    records = [departing("RTE-5", _refused(LOCKOUT)), departing("OBJ-2", line)]
    pair = (f"both refuse this call, in other words only after the calls before it: this server answers "
            f"“{LOCKOUT}” where the original answers “this.branches[validatedInput.branchId].push is not a "
            "function”")
    causes = [cause("RTE-5", [], "calls are refused"), _paired("OBJ-2", pair)]
    out, verdicts = under_bounds(causes, records)
    under = {rv.id: rv.explained_by for rv in verdicts}
    if capped:
        assert [c.id for c in out] == ["RTE-5", "OBJ-2"] and under["OBJ-2"] is None
    else:
        assert [c.id for c in out] == ["RTE-5"] and out[0].explains == ["OBJ-2"] and under["OBJ-2"] == "RTE-5"
