"""A repeated call answered from a cache is one cause, said as such (issue 42, held-out-multi-10's
fork-retry-cache: its stale counts led four causes and none said a cache answered them). Only a replayed pair
showing the repeat answered with its first sending's count, beside a count that jumped behind it, is a cache;
a count held at a cap, a call that is no repeat or a count that is not the first sending's is not."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.cached_answers import answered_from_cache, repeat_shown
from conformance.gate.evidence import checked_explanations
from conformance.report.escape import cut_headline
from conformance.report.model import Evidence, RecordVerdict, RootCause
from tests.verdicts import cause, departing

INIT = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}'


def _call(i: int, thought: str) -> str:
    arguments = {"thought": thought, "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                       "params": {"name": "sequentialthinking", "arguments": arguments}})


def _pair(thoughts: list[str], at: int, original: int, here: int) -> Evidence:
    """A replayed pair of `thoughts` sent in order, differing first on tools/call `at` in its count."""
    return Evidence(reproduced=True, at=f"on the example's tools/call {at}", original_spec="npm:0.6.2",
                    example=[INIT, *(_call(i + 1, t) for i, t in enumerate(thoughts))],
                    differences=[f"result.content[0].text → thoughtHistoryLength: {original} on the "
                                 f"original, {here} here"])


def _led(rid: str, evidence: Evidence | None, reason: str) -> tuple[RootCause, RecordVerdict]:
    rv = departing(rid, reason).model_copy(update={"evidence": evidence, "kind": "obj"})
    return cause(rid, [], reason).model_copy(update={"evidence": evidence}), rv


STALE = ("OBJ-2 contradicted: an accepted call left thoughtHistoryLength at 71, where each accepted call "
         'adds one: the answer { "thoughtNumber": 1, "thoughtHistoryLength": 71 }')
NOT_REPRODUCED = Evidence(reproduced=False, original_spec="npm:0.6.2",
                          why="no sequence reproduced it on fresh processes: it needs state the shared "
                              "process built up, or timing")
firsts = st.integers(min_value=1, max_value=4)
gaps = st.integers(min_value=1, max_value=4)


def _set(first: int, gap: int, jump: str, here_off: int = 0, same: bool = True
         ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """A cache's run as its report holds it: a stale-count cause (not reproduced), the cause whose pair shows
    the repeat, a departure explained by the stale one, a departure with its own words."""
    again = first + gap
    thoughts = [f"t{i}" for i in range(again)]
    thoughts[again - 1] = thoughts[first - 1] if same else "another thought"
    pair = _pair(thoughts, again, again, first + here_off)
    stale, stale_rv = _led("OBJ-2", NOT_REPRODUCED, STALE)
    stale = stale.model_copy(update={"explains": ["RTE-6"]})
    shown, shown_rv = _led("OBJ-4/a2", pair, "thoughtHistoryLength read 5 over 2 accepted calls")
    other, other_rv = _led("OBJ-8", None, "OBJ-8 contradicted: a refusal has 1 field(s) more than error")
    explained = departing("RTE-6", jump).model_copy(update={"explained_by": "OBJ-2"})
    return [stale, other, shown], [stale_rv, other_rv, shown_rv, explained]


@given(first=firsts, gap=gaps, before=st.integers(min_value=1, max_value=500),
       step=st.integers(min_value=2, max_value=500))
def test_a_repeat_answered_as_the_first_time_is_one_cache_cause(first: int, gap: int, before: int,
                                                                step: int) -> None:
    jump = (f"OBJ-2 contradicted: an accepted call took thoughtHistoryLength from {before} to "
            f"{before + step}, not to {before + 1}")
    causes, records = answered_from_cache(*_set(first, gap, jump))
    assert [c.id for c in causes] == ["OBJ-4/a2", "OBJ-8"]  # in the stale cause's place, the first
    held = causes[0]
    assert held.summary.startswith(f"OBJ-4/a2 departs — a repeated call is answered from a cache: tools/call "
                                   f"{first + gap} repeats tools/call {first}'s arguments")
    assert f"from {before} to {before + step})" in held.summary
    assert cut_headline(held.summary) == held.summary  # one clause, whole in report.md
    assert set(held.explains) == {"OBJ-2", "RTE-6"}
    by_id = {rv.id: rv for rv in records}
    assert by_id["OBJ-2"].explained_by == by_id["RTE-6"].explained_by == "OBJ-4/a2"
    assert by_id["OBJ-8"].explained_by is None


@given(first=firsts, gap=gaps, n=st.integers(min_value=2, max_value=10**4))
def test_a_count_held_at_a_cap_is_no_cache(first: int, gap: int, n: int) -> None:
    """A capped store answers repeats alike too, but no count ever jumps behind them."""
    given_ = _set(first, gap, f"OBJ-2 contradicted: an accepted call left thoughtHistoryLength at {n}, where "
                              f"each accepted call adds one")
    assert answered_from_cache(*given_) == (given_[0], given_[1])


@given(first=firsts, gap=gaps, off=st.sampled_from([-1, 1, 2]))
def test_no_repeat_or_another_count_is_no_cache(first: int, gap: int, off: int) -> None:
    jump = "OBJ-2 contradicted: an accepted call took thoughtHistoryLength from 1 to 4, not to 2"
    for given_ in (_set(first, gap, jump, same=False), _set(first, gap, jump, here_off=off)):
        assert answered_from_cache(*given_) == (given_[0], given_[1])
        assert repeat_shown(given_[0][2].evidence) is None


def test_checked_explanations_says_the_cache_once() -> None:
    """The run's own pass (`checked_explanations`, also what `--reattribute` runs) holds the fold."""
    jump = "OBJ-2 contradicted: an accepted call took thoughtHistoryLength from 1 to 4, not to 2"
    causes, _ = checked_explanations(*_set(1, 1, jump))
    led = [c for c in causes if "answered from a cache" in c.summary]
    assert [c.id for c in led] == ["OBJ-4/a2"] and "OBJ-2" not in {c.id for c in causes}


@given(first=firsts, gap=gaps, reproduced=st.booleans())
def test_one_call_sent_again_answered_otherwise_is_the_caches(first: int, gap: int,
                                                             reproduced: bool) -> None:
    """held-out-multi-10's retry-cache: CMP-2/a2's call, sent again with names the schema ignores, got the
    process's labels where its first sending got the cached `branches: []`; seen on the shared process only,
    it led a cause of its own. One whose own fresh pair shows it stays apart."""
    jump = "OBJ-2 contradicted: an accepted call took thoughtHistoryLength from 4 to 9, not to 5"
    causes, records = _set(first, gap, jump)
    line = ('CMP-2/a2 contradicted: the same call with the prompt\'s names {"branch_from_thought": 1} added '
            'is answered {"branches": ["alt"]}, where the original reads only the schema\'s names: '
            '{"branches": []}')
    own = (Evidence(reproduced=True, at="on the example's tools/call 2", original_spec="npm:0.6.2",
                    differences=['result.content[0].text → branches[0]: absent on the original, “alt” here'])
           if reproduced else NOT_REPRODUCED)
    again, again_rv = _led("CMP-2/a2", own, line)
    held, _ = answered_from_cache([*causes, again], [*records, again_rv])
    assert ("CMP-2/a2" in held[0].explains) is not reproduced
    assert ("CMP-2/a2" in [c.id for c in held]) is reproduced
