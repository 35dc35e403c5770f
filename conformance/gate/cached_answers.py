"""A repeated call answered from a cache: one cause, said as such, holding the counts it makes look wrong.

A server that answers a call it has seen before with the answer it gave then (a retry cache) breaks every
check that reads `thoughtHistoryLength` on the shared process: the repeat reports the count as it was, the
next different call's count jumps. Without this fold each such check led a cause of its own ("OBJ-2 departs
— thoughtHistoryLength is 665 …", "OBJ-3 departs — …") and none said what happened (issue 42,
held-out-multi-10's fork-retry-cache). Decided by class, from evidence already gathered: a cause's replayed
pair shows a call sent again with the same arguments answered with the count of its first sending where the
original's count grew, and some departure shows the store still growing behind the answers (a count that
jumps by more than one after one accepted call). A server that stops counting at a cap or keeps no repeat
shows neither both, so it is never said to cache.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from conformance.report.model import Evidence, RecordVerdict, RootCause

_AT: Final = re.compile(r"tools/call (\d+)\b")
"""Which tools/call of a replayed example the answers first differ on ("on the example's tools/call 2")."""
_COUNT_PAIR: Final = re.compile(r"thoughtHistoryLength: (\d+) on the original, (\d+) here")
"""A replayed pair's count difference, as `core/differences` words it."""
_JUMP: Final = re.compile(r"took thoughtHistoryLength from (\d+) to (\d+), not to (\d+)")
"""A check's words for an accepted call's count moving other than by one (`suite` store checks)."""
_COUNT: Final = "thoughtHistoryLength"


@dataclass(frozen=True)
class Repeat:
    """A replayed pair showing a repeat answered as the first time: which calls, and both sides' counts."""

    first: int
    again: int
    arguments: str
    original: int
    here: int


@dataclass(frozen=True)
class Jump:
    """A departure's own words showing the store grew behind stale answers: the count before and after."""

    record: str
    before: int
    after: int


def repeat_shown(evidence: Evidence | None) -> Repeat | None:
    """The pair's first differing call repeats an earlier call of its example exactly and is answered with the
    count the earlier call was (the original's count then, as both sides agreed up to here), where the
    original's count grew by the calls since; None for any other pair."""
    if evidence is None or not evidence.reproduced or not evidence.example:
        return None
    at = _AT.search(evidence.at)
    if at is None:
        return None
    counts = _counts(evidence)
    if counts is None:
        return None
    calls = _tool_calls(evidence.example)
    again = int(at.group(1))
    if not 1 <= again <= len(calls):
        return None
    sent = calls[again - 1]
    first = next((i + 1 for i, params in enumerate(calls[:again - 1]) if params == sent), None)
    original, here = counts
    if first is None or here != original - (again - first) or here >= original:
        return None
    arguments = sent.get("arguments") if isinstance(sent, dict) else None
    return Repeat(first=first, again=again, original=original, here=here,
                  arguments=json.dumps(arguments, ensure_ascii=False)[:120])


def _counts(evidence: Evidence) -> tuple[int, int] | None:
    """Both sides' counts at the differing call: from the pair's words, else from the two answers quoted
    (the count need not be the first field to differ)."""
    found = next((m for d in evidence.differences if (m := _COUNT_PAIR.search(d))), None)
    if found is not None:
        return int(found.group(1)), int(found.group(2))
    original, here = _count_in(evidence.original), _count_in(evidence.target)
    return None if original is None or here is None else (original, here)


def _count_in(response: str) -> int | None:
    """The count an accepted answer (a JSON-RPC frame, compact) reports, None when it reports none."""
    try:
        frame = json.loads(response)
        text = frame["result"]["content"][0]["text"]
        count = json.loads(text).get(_COUNT)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None
    return count if isinstance(count, int) and not isinstance(count, bool) else None


def _tool_calls(frames: Sequence[str]) -> list[object]:
    """The params of each tools/call frame, in order (a frame that is not JSON is none)."""
    out: list[object] = []
    for frame in frames:
        try:
            message = json.loads(frame)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("method") == "tools/call":
            out.append(message.get("params"))
    return out


def jump_shown(records: Sequence[RecordVerdict]) -> Jump | None:
    """The departure whose own failure says an accepted call moved the count by more than one, the smallest
    such move (the easiest to read)."""
    jumps = [Jump(record=rv.id, before=int(found.group(1)), after=int(found.group(2))) for rv in records
             if rv.verdict == "deviates" and (found := _JUMP.search(rv.reason))
             and int(found.group(2)) > int(found.group(1)) + 1]
    return min(jumps, key=lambda j: j.after - j.before, default=None)


def said(repeat: Repeat, jump: Jump) -> str:
    """The cause's headline after "X departs — ": the cache, its trigger, and the store still growing; one
    clause within a headline's 300 characters (the repeated arguments are the example's, shown below it)."""
    return (f"a repeated call is answered from a cache: tools/call {repeat.again} repeats tools/call "
            f"{repeat.first}'s arguments and is answered {_COUNT} {repeat.here}, as the first time, where "
            f"the original answers {repeat.original}, while the store still grows ({jump.record}: an "
            f"accepted call took it from {jump.before} to {jump.after})")


def _stale_count(rv: RecordVerdict | None) -> bool:
    """A departure whose own failure is a count read on the shared process, or two answers to one call sent
    again there ("the same call … is answered …"), and no fresh pair of its own shows otherwise: what a
    cache's stale answers break (held-out-multi-10's retry-cache: CMP-2/a2's call, sent again with names the
    schema ignores, was answered with the labels of the process, where its first sending got the cached
    answer's `branches: []`)."""
    if rv is None or rv.verdict != "deviates":
        return False
    evidence = rv.evidence
    if _COUNT not in rv.reason:
        return (_SAME_CALL.search(rv.reason) is not None and evidence is not None and not evidence.reproduced
                and not evidence.own_failure)
    return evidence is None or not evidence.reproduced or repeat_shown(evidence) is not None


_SAME_CALL: Final = re.compile(r"\bthe same call\b")
"""A check's words for a call it sends again beside its first sending (`suite` checks of a repeat)."""


def answered_from_cache(
    causes: Sequence[RootCause], records: Sequence[RecordVerdict]
) -> tuple[list[RootCause], list[RecordVerdict]]:
    """One cause for a cache of repeated calls, led by the cause whose pair shows the repeat, headed by what
    the cache does; the causes led by a stale count, and loose stale-count departures, are explained by it."""
    by_id = {rv.id: rv for rv in records}
    jump = jump_shown(records)
    shown = [(c, r) for c in causes if (r := repeat_shown(c.evidence)) is not None] if jump else []
    if not shown or jump is None:
        return list(causes), list(records)
    lead, repeat = shown[0]
    folded = {c.id for c in causes if c is not lead and c.records == [c.records[0]]
              and _stale_count(by_id.get(c.records[0]))}
    moved: dict[str, None] = {}
    for cause in causes:
        if cause.id in folded:
            moved.update(dict.fromkeys([*cause.records, *cause.explains]))
    primary = {r for c in causes for r in c.records}
    for rv in records:
        if not rv.explained_by and rv.id not in primary and rv.kind != "spec" and _stale_count(rv):
            moved[rv.id] = None
    explains = [*lead.explains, *(r for r in moved if r not in lead.explains and r not in lead.records)]
    summary = f"{lead.records[0]} departs — {said(repeat, jump)}"
    # It takes the place of the first cause it holds: the one a reader met first for these departures.
    place = min(i for i, c in enumerate(causes) if c is lead or c.id in folded)
    rest = [c for c in causes if c is not lead and c.id not in folded]
    before = sum(1 for c in causes[:place] if c is not lead and c.id not in folded)
    held = lead.model_copy(update={"summary": summary[:600], "explains": explains})
    out_causes = [*rest[:before], held, *rest[before:]]
    out = [rv.model_copy(update={"explained_by": lead.id}) if rv.id in moved else rv for rv in records]
    return out_causes, out
