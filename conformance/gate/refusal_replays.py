"""Which evidence replays share a process of the original: sequences it refuses throughout.

A replay gets fresh processes so that what differs is the server's, not a history's: a sequence with an
accepted call, a counter, an ended stdin or a signal needs them. A sequence that opens with initialize and
then only lists the tools or makes calls the original's guards refuse (`core/guards.guard_failure`: refused
before the original's store is touched, whatever came before) or calls another tool asks nothing of the
original's history: such sequences, opening with the same initialize, are one kind, replayed one after another
on one process of the original (`in_turn`), at most `PER_PAIR` of them, each beside a fresh process of the
target (a target may keep anything of a refusal: a lockout after a streak of refusals that starts counting
again shows in no check made around it). The grouping reads the frames alone, so it is the same under every
seed; whether the original's process is still as a fresh one is the replay's check (gate/evidence.py,
`_replay_in_turn`): every call refused, nothing on stderr after the banner, nothing sent unasked, running,
and the first sequence's first call, sent again before and after the next sequence, answered as on the fresh
process; else the next sequence starts a fresh pair.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

from conformance.core.guards import guard_failure
from conformance.core.jsontypes import JSON, json_object
from conformance.core.protocol import TOOL

PER_PAIR: Final = 4
"""The most sequences one process of the original replays in turn: beyond it the kind's next sequences start
another, so a red run's many refusals still go side by side."""
_LISTED: Final = frozenset({"tools/list"})
"""The requests besides refused calls a sequence of the kind may send after its opening: answered from the
server's constants, never its store."""
_OPENED: Final = "notifications/initialized"


def _refused_by_the_original(frame: dict[str, JSON]) -> bool:
    """A tools/call the original refuses on any process: another tool's, or arguments its guards refuse."""
    params = frame.get("params")
    if not isinstance(params, dict):
        return False
    arguments = params.get("arguments")
    if params.get("name") != TOOL:
        return isinstance(params.get("name"), str)
    return isinstance(arguments, dict) and guard_failure(arguments) is not None


def opening(frames: Sequence[str]) -> str | None:
    """The initialize frame (its id as 0) of a sequence of the kind, else None: initialize, its notification,
    then at least one request, each a tools/list or a call the original refuses."""
    if len(frames) < 3:
        return None
    parsed = [json_object(text) for text in frames]
    first, second = parsed[0], parsed[1]
    if first is None or first.get("method") != "initialize" or type(first.get("id")) is not int:
        return None
    if second is None or second.get("method") != _OPENED or "id" in second:
        return None
    for frame in parsed[2:]:
        if frame is None or type(frame.get("id")) is not int:
            return None
        method = frame.get("method")
        if method not in _LISTED and not (method == "tools/call" and _refused_by_the_original(frame)):
            return None
    return json.dumps({**first, "id": 0}, sort_keys=True)


def in_turn(sequences: Sequence[tuple[str, ...]]) -> list[list[tuple[str, ...]]]:
    """The sequences as pairs will replay them, in the order given: each sequence of the kind with the kind's
    earlier ones of the same opening (at most `PER_PAIR` a pair; the group placed where its first sequence
    is), every other alone."""
    groups: list[list[tuple[str, ...]]] = []
    open_group: dict[str, list[tuple[str, ...]]] = {}
    for frames in sequences:
        key = opening(frames)
        group = open_group.get(key) if key is not None else None
        if group is not None and len(group) < PER_PAIR:
            group.append(frames)
            continue
        groups.append([frames])
        if key is not None:
            open_group[key] = groups[-1]
    return groups
