"""Evidence replays of sequences the original refuses throughout share one process of it (issue 46), and
every pair says what a fresh pair says: the grouping is a function of the frames alone (a property), and on
real servers (targets that keep nothing of a refusal or lock out after three; originals that stamp, count
their refusals, accept what the guards refuse) each sequence's answers equal its own fresh pair's."""

from __future__ import annotations

import json
import shlex
import sys

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.drivers import process
from conformance.gate import evidence
from conformance.gate.canonical import without_volatile
from conformance.gate.refusal_replays import PER_PAIR, in_turn, opening
from conformance.targets.specs import Target, resolve_target
from tests.servers import command

_HELLO: dict[str, JSON] = {"protocolVersion": "2024-11-05", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "0"}}
_REFUSED: list[JSON] = [
    {}, {"thought": ""}, {"thought": "t", "thoughtNumber": 0, "totalThoughts": 1, "nextThoughtNeeded": True},
    {"thought": "t", "thoughtNumber": 1, "totalThoughts": None, "nextThoughtNeeded": True},
    {"thought": 7, "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False},
    {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": "yes"},
]
"""Arguments each of the original's guards refuses (a missing, empty, zero, null or mistyped field)."""
_ACCEPTED: list[JSON] = [{"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False},
                         {"thought": "u", "thoughtNumber": 2, "totalThoughts": 1, "nextThoughtNeeded": True,
                          "branchId": "b", "branchFromThought": 1}]


def _sequence(calls: list[JSON | str], client: str = "t") -> tuple[str, ...]:
    """initialize, initialized, then each call (a tools/call's arguments, or a method's name), ids from 0."""
    hello = {**_HELLO, "clientInfo": {"name": client, "version": "0"}}
    frames = [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}),
              json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    for i, call in enumerate(calls, start=1):
        frames.append(json.dumps({"jsonrpc": "2.0", "id": i, "method": call}) if isinstance(call, str) else
                      json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                  "params": {"name": "sequentialthinking", "arguments": call}}))
    return tuple(frames)


_CALLS = st.lists(st.one_of(st.sampled_from(_REFUSED), st.sampled_from(_ACCEPTED), st.just("tools/list")),
                  min_size=1, max_size=3)
_SEQUENCES = st.lists(st.builds(_sequence, _CALLS, st.sampled_from(["t", "u"])), max_size=14, unique=True)
"""Distinct sequences, as the replays start them (each once)."""


@given(_SEQUENCES)
def test_the_grouping_is_the_frames_alone_and_a_group_is_one_kind(sequences: list[tuple[str, ...]]) -> None:
    """Every sequence in one group, in the order given; a group of several holds only sequences the
    original refuses throughout, opening alike, at most `PER_PAIR`; a sequence with a call the original
    accepts is alone; the same sequences are grouped the same way again."""
    groups = in_turn(sequences)
    assert sorted(s for g in groups for s in g) == sorted(sequences)
    assert [sequences.index(g[0]) for g in groups] == sorted(sequences.index(g[0]) for g in groups)
    for group in groups:
        assert [sequences.index(s) for s in group] == sorted(sequences.index(s) for s in group)
        assert 1 <= len(group) <= PER_PAIR
        if len(group) > 1:
            assert len({opening(s) for s in group}) == 1 and opening(group[0]) is not None
    for frames in sequences:
        calls = [json.loads(f) for f in frames[2:]]
        if any(c.get("params", {}).get("arguments") in _ACCEPTED for c in calls):
            assert opening(frames) is None and [frames] in groups
    assert in_turn(list(sequences)) == groups


def _target(argv: list[str]) -> Target:
    return resolve_target("cmd:" + shlex.join(argv))


_REFERENCE = [sys.executable, "-m", "reference_server"]
_KIND = [_sequence([_REFUSED[0]]), _sequence([_REFUSED[2], _REFUSED[1], _REFUSED[3]]),
         _sequence([_REFUSED[4]]), _sequence(["tools/list", _REFUSED[5]])]
"""Four sequences of the kind: one process of the original for all four when it keeps nothing of them."""


def _said(replayed: evidence._Replayed) -> list[object]:
    """What a report reads of a pair: each answer but how long it took, and the lines its process wrote to
    stderr (which answer a start-up banner lands in follows the machine's load, on any two fresh pairs)."""
    return [side if isinstance(side, str) else [
        [(a.method, a.response, a.own, a.sent) for a in side],
        sorted(line for a in side if a.method != evidence.WHOLE_STDERR for line in a.stderr.splitlines()),
        [a.stderr for a in side if a.method == evidence.WHOLE_STDERR]] for side in replayed]


def _in_turn_and_fresh(target: Target, original: Target | None = None
                       ) -> tuple[int, list[list[object]], list[list[object]]]:
    """The processes the kind's pairs take replayed ahead, and what each says, beside each on a pair of its
    own (the original: the reference unless given)."""
    original = original or _target(_REFERENCE)
    before = process.processes_started()
    with evidence._Replays(target, original, 20) as replays:
        replays.prefetch(_KIND)
        shared = [_said(replayed) for frames in _KIND if (replayed := replays.get(frames)) is not None]
    started = process.processes_started() - before
    fresh = [_said(evidence._replay_both(original, target, frames, 20)) for frames in _KIND]
    return started, shared, fresh


def test_the_originals_refusals_share_one_process() -> None:
    """The reference refusing all four sequences: one process of it (four on their own) beside a fresh
    process of the target for each, each sequence's answers as on its own fresh pair."""
    started, shared, fresh = _in_turn_and_fresh(_target(command("refusals", "plain")))
    assert started == len(_KIND) + 1, f"{started} processes for {len(_KIND)} sequences of refusals"
    assert shared == fresh


def test_a_target_locking_out_after_refusals_gets_a_fresh_process_each_time() -> None:
    """A target answering the call after three refusals in a row "Too many invalid calls" and counting again
    (fork-model-guard): on one shared process the second sequence's last call would be locked out and no
    call sent again around it would show it; each sequence meets a fresh process of the target, so each
    says what it says on its own fresh pair (never "Too many")."""
    started, shared, fresh = _in_turn_and_fresh(_target(command("refusals", "lockout")))
    assert started == len(_KIND) + 1, started
    assert shared == fresh
    assert "Too many" not in json.dumps(shared)


def test_an_original_stamping_its_refusals_shares_its_process() -> None:
    """An original stamping each refusal with the time it was made answers the first call again alike but for
    the stamp (`without_volatile`): one process of it, each sequence's answers as on its own fresh pair but
    the stamps."""
    started, shared, fresh = _in_turn_and_fresh(_target(command("refusals", "plain")),
                                                _target(command("refusals", "stamped")))
    assert started == len(_KIND) + 1, started
    assert "timestamp" in json.dumps(shared)
    assert without_volatile(json.loads(json.dumps(shared))) == without_volatile(json.loads(json.dumps(fresh)))


def test_an_original_counting_its_refusals_gets_fresh_pairs() -> None:
    """An original whose refusal says how many it has made (no installed original does; the check holds
    whatever answers as the original): the first sequence's first call, sent again before the next one, is
    answered otherwise than on the fresh process, so every sequence gets a fresh pair and says what it says
    there (its first refusal is refusal 1)."""
    started, shared, fresh = _in_turn_and_fresh(_target(command("refusals", "plain")),
                                                _target(command("refusals", "counted")))
    assert started == 2 * len(_KIND), started
    assert shared == fresh
    firsts = [next(a[1] for a in pair[0][0] if a[0] == "tools/call") for pair in shared]  # type: ignore[index]
    assert all("(refusal 1)" in first for first in firsts), firsts


def test_an_original_accepting_what_its_guards_refuse_gets_fresh_pairs() -> None:
    """An original that accepts (and counts) every call: after an accepted call (and the first call sent
    again, answered with a higher count) its process is no longer as a fresh one, so the next sequence gets
    a pair of its own and its count starts at 1 as on a fresh process."""
    started, shared, fresh = _in_turn_and_fresh(_target(command("refusals", "plain")),
                                                _target(command("refusals", "accepting")))
    assert started == 2 * len(_KIND), started
    assert shared == fresh
