"""A profile's compare search runs its floor of programs whatever the machine's load, and every search its
fixed witnesses: a deadline already passed stops it only after those, or at the ceiling (issue 43, a verdict
that changes with load)."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.compare.pair import Side, start_together
from conformance.compare.programs import WITNESSES
from conformance.compare.search import Search
from conformance.targets.specs import resolve_target


def _searched(floor: int, ceiling_in: float) -> Search:
    """Two reference processes searched with a deadline one second past: what the floor keeps running."""
    a = Side(resolve_target("reference"), 20.0)
    b = Side(resolve_target("reference"), 20.0)
    start_together(a, b)
    now = time.monotonic()
    search = Search(a, b, now - 1.0, cap=40, floor=floor, ceiling=now + ceiling_in)
    try:
        search.witnesses()
        search.generated(examples=floor, rounds=1, seed=7)
    finally:
        a.close()
        b.close()
    return search


@settings(max_examples=3, deadline=None)
@given(floor=st.integers(min_value=3, max_value=12))
def test_a_passed_deadline_stops_the_search_only_after_its_floor(floor: int) -> None:
    search = _searched(floor, ceiling_in=600.0)
    assert search.programs_run >= floor, f"{search.programs_run} programs run, where the floor is {floor}"
    assert search.known == set(), f"the reference differs from itself: {sorted(search.known)}"


def test_without_a_floor_a_passed_deadline_stops_the_search_after_the_fixed_witnesses() -> None:
    """A user's seconds (`--budget S`, no floor) bound the generated programs, never the fixed witnesses."""
    search = _searched(0, ceiling_in=600.0)
    assert search.programs_run == len(WITNESSES), f"{search.programs_run} of {len(WITNESSES)} witnesses run"


def test_past_the_ceiling_a_passed_deadline_stops_at_once() -> None:
    past = _searched(12, ceiling_in=-0.5)
    assert past.programs_run == 0 and past.budget_reached
