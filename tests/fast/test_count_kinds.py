"""How gate/count_kinds reads a call's kind and a check's words for a count that fell (issue 42: a count
leaving a kind of call out, said under the record stating that kind counts, never a store losing thoughts)."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.count_kinds import count_fell, kind_of

_COUNTS = st.lists(st.integers(min_value=0, max_value=10_000), min_size=2, max_size=12)


@given(counts=_COUNTS)
def test_a_read_falls_exactly_when_some_count_is_below_the_one_before(counts: list[int]) -> None:
    message = (f"thoughtHistoryLength read {', '.join(map(str, counts))} over {len(counts)} accepted calls "
               "in two episodes, where the original adds one per call")
    assert count_fell(message) == any(b < a for a, b in itertools.pairwise(counts))


@given(before=st.integers(min_value=0, max_value=10_000), after=st.integers(min_value=0, max_value=10_000))
def test_from_to_falls_exactly_when_lower(before: int, after: int) -> None:
    message = f"OBJ-2 contradicted: an accepted call took thoughtHistoryLength from {before} to {after}"
    assert count_fell(message) == (after < before)


def test_a_count_left_flat_is_no_fall() -> None:
    assert not count_fell("OBJ-2 contradicted: an accepted call left thoughtHistoryLength at 5, where each "
                          "accepted call adds one")


@given(point=st.one_of(st.just(0), st.just(""), st.none(), st.integers(min_value=1), st.text(min_size=1)),
       label=st.one_of(st.just(""), st.none(), st.text(min_size=1), st.integers(min_value=1)),
       revision=st.one_of(st.booleans(), st.none(), st.just("true")))
def test_the_kind_of_a_call_is_read_as_the_original_reads_its_fields(
        point: object, label: object, revision: object) -> None:
    arguments = {"thought": "t", "branchFromThought": point, "branchId": label, "isRevision": revision}
    expected = "revision" if revision is True else "branch" if point and label else ""
    assert kind_of(arguments) == expected
