"""The long probes' search and words without servers: the first differing call is the smallest length at
which two store models differ, the probe stops within its limit and its tail, and what it says of each side
(capped, dropped, growing) is what the model did (on real servers: tests/e2e/test_compare_probes.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.attribution import default_rules
from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.observe import Found
from conformance.compare.probes import LONG_PROBE, PROBES, Reading, scan, trend
from conformance.compare.programs import frames
from conformance.report.model import Difference


@dataclass(frozen=True)
class Model:
    """A store's size after call i (1-based): growing, capped at `cap`, or reset to 1 at call `reset`, and
    refusing from call `refuse` on."""

    cap: int | None = None
    reset: int | None = None
    refuse: int | None = None

    def after(self, i: int) -> Reading:
        if self.refuse is not None and i >= self.refuse:
            return None
        if self.reset is not None and i >= self.reset:
            return i - self.reset + 1
        return min(i, self.cap) if self.cap is not None else i


positive = st.integers(min_value=1, max_value=400)
models = st.builds(Model, st.none() | positive, st.none() | st.integers(min_value=2, max_value=400),
                   st.none() | positive)


def _truth(a: Model, b: Model, limit: int) -> int | None:
    return next((i for i in range(1, limit + 1) if a.after(i) != b.after(i)), None)


def _caller(a: Model, b: Model, made: list[int]) -> Callable[[int], tuple[Reading, Reading]]:
    def call(i: int) -> tuple[Reading, Reading]:
        made.append(i)
        return a.after(i), b.after(i)
    return call


@given(a=models, b=models, limit=st.integers(min_value=1, max_value=500), tail=st.integers(0, 20))
def test_the_first_difference_is_the_smallest_length_and_the_probe_stays_within_its_bounds(
    a: Model, b: Model, limit: int, tail: int
) -> None:
    made: list[int] = []
    seen = scan(_caller(a, b, made), limit, tail, lambda: False)
    truth = _truth(a, b, limit)
    assert made == list(range(1, len(made) + 1)), "calls are made in order, each once"
    assert len(made) <= limit
    refused = next((i for i in made if a.after(i) is None or b.after(i) is None), None)
    if truth is not None and (refused is None or truth <= refused):
        assert seen.first == truth and seen.stopped == "difference"
        assert len(made) <= truth + tail
        assert len(made) == min(limit, truth + tail) or made[-1] == refused
    elif refused is not None:
        assert seen.first is None and seen.stopped == "not accepted" and made[-1] == refused
    else:
        assert seen.first is None and seen.stopped == "limit" and len(made) == limit
    assert seen.a == [a.after(i) for i in made] and seen.b == [b.after(i) for i in made]


@given(limit=st.integers(min_value=1, max_value=50), allowed=st.integers(min_value=0, max_value=60))
def test_the_time_budget_ends_a_probe_without_a_claim(limit: int, allowed: int) -> None:
    made: list[int] = []
    seen = scan(_caller(Model(), Model(), made), limit, 16, lambda: len(made) >= allowed)
    assert seen.first is None
    assert len(made) == min(limit, allowed)
    assert seen.stopped == ("limit" if allowed >= limit else "budget")


@given(cap=st.integers(min_value=1, max_value=300), tail=st.integers(min_value=1, max_value=20))
def test_a_cap_is_said_with_its_bound_and_the_other_side_growing(cap: int, tail: int) -> None:
    made: list[int] = []
    seen = scan(_caller(Model(), Model(cap=cap), made), 1000, tail, lambda: False)
    assert seen.first == cap + 1
    last = cap + 1 + tail
    assert len(made) == last, "the tail: calls past the first difference"
    assert trend(seen.b, cap + 1) == f"caps it at {cap} (unchanged over calls {cap + 1} to {last})"
    assert trend(seen.a, cap + 1) == f"keeps it growing by one a call ({last} after call {last})"


@given(reset=st.integers(min_value=3, max_value=300), tail=st.integers(min_value=2, max_value=20))
def test_a_reset_is_said_as_a_drop_at_its_call(reset: int, tail: int) -> None:
    made: list[int] = []
    seen = scan(_caller(Model(reset=reset), Model(), made), 1000, tail, lambda: False)
    assert seen.first == reset
    said = trend(seen.a, reset)
    assert said == f"drops it from {reset - 1} to 1 at call {reset}, then grows it by one a call " \
        f"({1 + tail} after call {reset + tail})"
    assert trend(seen.b, reset).startswith("keeps it growing")


def _difference(cap: int, tail: int) -> Difference:
    made: list[int] = []
    seen = scan(_caller(Model(), Model(cap=cap), made), 1000, tail, lambda: False)
    assert seen.first is not None
    probe = PROBES[0]
    first = seen.first
    found = Found("store", probe.field, "", LONG_PROBE, trend(seen.a, first), trend(seen.b, first), True)
    records, cause = default_rules().attribute(found)
    return Difference(id=found.signature, aspect="store", summary="", records=records, cause=cause,
                      program=frames(probe.program(seen.first)), a=found.a, b=found.b, field=probe.field,
                      detail=LONG_PROBE)


@given(cap=st.integers(min_value=1, max_value=120))
def test_the_headline_names_the_capped_side_its_bound_and_the_smallest_length(cap: int) -> None:
    d = _difference(cap, 16)
    assert d.cause == "history-bound" and "RTE-5" in d.records and "ABS-11" in d.records
    said = explain([d], "base", "head", default_known_changes())
    calls = cap + 1
    assert said.headline == (
        f"`thoughtHistoryLength` over one run of distinct accepted calls: head caps it at {cap} (unchanged "
        f"over calls {calls} to {calls + 16}); base keeps it growing by one a call ({calls + 16} after call "
        f"{calls + 16}); they first differ after call {calls} (1 difference)")
    assert len([f for f in d.program if '"tools/call"' in f]) == calls


@given(refuse=st.integers(min_value=1, max_value=300))
def test_a_side_that_stops_accepting_is_said_so_at_that_call_and_the_probe_ends_there(refuse: int) -> None:
    made: list[int] = []
    seen = scan(_caller(Model(), Model(refuse=refuse), made), 1000, 16, lambda: False)
    assert seen.first == refuse and made[-1] == refuse
    assert trend(seen.b, refuse) == f"does not accept the probe's call {refuse}"
    assert trend(seen.a, refuse) == f"keeps it growing by one a call ({refuse} after call {refuse})"


def test_a_side_that_never_grows_is_not_said_to_cap_it() -> None:
    seen = scan(lambda i: (i, 0), 100, 4, lambda: False)
    assert seen.first == 1
    assert trend(seen.b, 1) == "leaves it at 0 (over calls 1 to 5)"


def test_a_call_accepted_without_a_count_to_read_is_not_said_refused() -> None:
    """stopuncle-js accepts every probe call and answers its count beside `activeBranches`, not `branches`:
    compare said it "does not accept the probe's call 1". An accepted answer without both is said as such."""
    assert trend([None], 1) == "does not accept the probe's call 1"
    said = trend([None], 1, unread=True)
    assert said == "answers the probe's call 1 without a thoughtHistoryLength and a branches list to read"
    assert trend([1, 2, None], 2, unread=True).endswith(
        "then answers the probe's call 3 without a thoughtHistoryLength and a branches list to read")
