"""A cause's headline never says a difference with equal values on both sides: each key's example comes from
a difference where that key's values differ, whichever difference of the group is the smallest (the
differences are built by hand, as compare's pairs record them; real pairs:
tests/e2e/test_compare_pairs.py)."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.report.model import Difference

LA, LB = "base", "head"
KEYS = ("nextThoughtNeeded", "thoughtNumber", "totalThoughts")


def _frame(arguments: dict[str, object]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"name": "sequentialthinking", "arguments": arguments}})


def _status(key: str, a: int, b: int, calls: int) -> Difference:
    """One accepted answer per side, `key` differing (a boolean key by its parity), the rest alike."""
    def answer(value: int) -> str:
        shown: dict[str, object] = {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}
        shown[key] = bool(value % 2) if key == "nextThoughtNeeded" else value
        return json.dumps(shown | {"branches": [], "thoughtHistoryLength": calls})
    program = [_frame({"thought": "a", "thoughtNumber": n, "totalThoughts": 3, "nextThoughtNeeded": True})
               for n in range(1, calls + 1)]
    return Difference(id=f"answer.{key}.status", aspect="answer", summary="", field=key, a=answer(a),
                      b=answer(b), detail="", cause="status", program=program)


def _pairs(headline: str) -> list[tuple[str, str, str]]:
    return re.findall(r"`(\w+)` (\S+) on base, (\S+) on head", headline)


group = st.lists(
    st.tuples(st.sampled_from(KEYS), st.integers(0, 9), st.integers(1, 9), st.integers(1, 4)),
    min_size=1, max_size=4, unique_by=lambda t: t[0],
).map(lambda ts: [_status(k, a, a + d if k != "nextThoughtNeeded" else a + 1, c) for k, a, d, c in ts])


@given(group)
def test_every_value_example_shows_two_different_values(members: list[Difference]) -> None:
    headline = explain(members, LA, LB, default_known_changes()).headline
    pairs = _pairs(headline)
    assert pairs, headline
    assert all(a != b for _, a, b in pairs), headline


def test_a_key_differing_only_in_a_larger_difference_is_shown_from_it() -> None:
    smallest = _status("nextThoughtNeeded", 0, 1, 1)
    revision = _status("thoughtNumber", 2, 1, 2)
    headline = explain([revision, smallest], LA, LB, default_known_changes()).headline
    assert ("thoughtNumber", "2", "1") in _pairs(headline), headline
    assert ("nextThoughtNeeded", "false", "true") in _pairs(headline), headline


def test_a_key_is_shown_from_a_difference_at_that_key() -> None:
    """Another key's pair may show this key apart where it was compared alike (a count compared relative to
    each side's start): the example comes from a difference found at the key."""
    other = Difference(id="answer.nextThoughtNeeded.status", aspect="answer", summary="",
                       field="nextThoughtNeeded", detail="", cause="status",
                       program=[_frame({"thought": "a"})],
                       a=json.dumps({"nextThoughtNeeded": False, "thoughtHistoryLength": 1}),
                       b=json.dumps({"nextThoughtNeeded": True, "thoughtHistoryLength": 3}))
    count = Difference(id="answer.thoughtHistoryLength.status", aspect="answer", summary="",
                       field="thoughtHistoryLength", detail="", cause="status",
                       program=[_frame({"thought": "a"}), _frame({"thought": "b"})],
                       a=json.dumps({"nextThoughtNeeded": True, "thoughtHistoryLength": 2}),
                       b=json.dumps({"nextThoughtNeeded": True, "thoughtHistoryLength": 1}))
    headline = explain([count, other], LA, LB, default_known_changes()).headline
    assert ("thoughtHistoryLength", "2", "1") in _pairs(headline), headline
