"""Two differences one pair shows, each said under the record that states it: a cause whose leading record's
own checks contradict one field of its pair, while departures it explains fail on another field of that pair,
holds two changes and becomes two causes.

One request shows every change a fork made to its answer at once: a tools/list both paged (`nextCursor`)
and with its description cut to one line (issue 42, held-out-multi-17's client-polish). RTE-1's check sent
the listing and named RTE-1 contradicted by the paged listing; the cause was headed by the description, which
CMP-2 states and RTE-1 does not, and CMP-2 with the fifteen records of the description stayed under RTE-1.
Here the cause keeps the difference its leading record's own checks say, headed by it, and the departures
whose checks say another field of the pair, and not that one, open that field's cause, led by the record
stating it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from conformance.gate.check_words import failing_checks
from conformance.report.model import Evidence, RecordVerdict, RootCause

Tells = Callable[[str, str], bool]
"""Whether a check's message, in its own words, says a pair's difference (`gate/evidence._tells`, strict)."""
Keyed = Callable[[str], str]
"""The field a difference is about (`gate/evidence._difference_key`)."""
Breaks = Callable[[str, Sequence[str]], str]
"""The clause of a statement a difference contradicts, empty for none (`gate/evidence.breaks`)."""


@dataclass(frozen=True)
class Reading:
    """How the gate reads differences and checks, handed in by the grouping that calls this pass."""

    tells: Tells
    key: Keyed
    breaks: Breaks
    rank: Mapping[str, int]


def stated_apart(causes: Sequence[RootCause], records: Sequence[RecordVerdict], reading: Reading
                 ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """Each cause split by the fields of its pair its records' own checks say (see the module docstring)."""
    by_id = {rv.id: rv for rv in records}
    out: list[RootCause] = []
    moved: dict[str, str] = {}
    for cause in causes:
        split = _split(cause, by_id, reading)
        out.extend(split)
        for opened in split[1:]:
            moved |= {r: opened.id for r in opened.explains} | {opened.id: ""}
    if not moved:
        return out, list(records)
    return out, [rv.model_copy(update={"explained_by": moved[rv.id] or None}) if rv.id in moved else rv
                 for rv in records]


def _fields(evidence: Evidence, reading: Reading) -> dict[str, list[str]]:
    """A pair's differences by the field each is about, fields only (a refusal, the box, a process's end
    are no field of the answer)."""
    out: dict[str, list[str]] = {}
    for difference in evidence.differences:
        key = reading.key(difference)
        if key.isidentifier():
            out.setdefault(key, []).append(difference)
    return out


def _own_messages(rv: RecordVerdict) -> list[str]:
    """What a record's own checks say of it: those naming it contradicted, else every failing one's."""
    checks = failing_checks(rv)
    return [m for t, m in checks if rv.id in t.contradicted] or [m for _, m in checks]


def _said(messages: Sequence[str], differences: Sequence[str], reading: Reading) -> bool:
    return any(reading.tells(d, m) for d in differences for m in messages)


def _split(cause: RootCause, by_id: Mapping[str, RecordVerdict], reading: Reading) -> list[RootCause]:
    evidence = cause.evidence
    lead = by_id.get(cause.records[0]) if cause.records else None
    if (evidence is None or lead is None or not evidence.reproduced or evidence.not_its_failure
            or len(cause.records) != 1):
        return [cause]
    fields = _fields(evidence, reading)
    if len(fields) < 2:
        return [cause]
    own = _own_messages(lead)
    stated = [key for key, said in fields.items() if _said(own, said, reading)]
    if len(stated) != 1:
        return [cause]  # its own checks say none of the fields, or several: no one field is the lead's
    kept = stated[0]
    opened: list[RootCause] = []
    taken: set[str] = set()
    for key, said in fields.items():
        if key == kept or (_keyed(said) and _keyed(fields[kept])):
            continue  # keys added or dropped together are one move (counts nested under `session`)
        members = [by_id[r] for r in cause.explains if r in by_id and r not in taken
                   and _theirs(by_id[r], said, fields[kept], reading)]
        if not members:
            continue
        first = min(members, key=lambda rv: _stating(rv, said, reading))
        # The pair is the leading cause's replay, reused: said so ("the replay of root cause RTE-1").
        shown = evidence.model_copy(update={"differences": list(said),
            "cause": cause.id, "breaks": reading.breaks(first.statement, said[:1])})
        taken |= {rv.id for rv in members}
        opened.append(RootCause(
            id=first.id, records=[first.id], explains=[rv.id for rv in members if rv is not first],
            summary=f"{first.id} departs — {shown.headline()}"[:400], example=list(cause.example),
            test=cause.test, minimized=cause.minimized, evidence=shown))
    first_said = reading.key(evidence.differences[0]) == kept
    if not opened and first_said:
        return [cause]
    moved = {d for opening in opened if opening.evidence is not None for d in opening.evidence.differences}
    shown = _led_by(evidence, fields[kept], moved)
    summary = cause.summary if first_said else f"{cause.records[0]} departs — {shown.headline()}"[:400]
    return [cause.model_copy(update={"explains": [r for r in cause.explains if r not in taken],
                                     "summary": summary, "evidence": shown}), *opened]


def _keyed(said: Sequence[str]) -> bool:
    """Whether a field's differences are its key added or dropped, not its value changed."""
    return all(d.endswith(_DROPPED) or _ADDED in d for d in said)


_ADDED: Final = ": absent on the original, "
_DROPPED: Final = " on the original, absent here"
"""`core/differences`' words for a key one side's answer lacks."""


def _theirs(rv: RecordVerdict, said: Sequence[str], kept: Sequence[str], reading: Reading) -> bool:
    """Whether a record's own checks say this field's difference and not the kept one's, or say both (a
    field's name is a common word: "name" in CMP-2/a2's `"- name:" lines`) while its statement is broken by
    this one alone."""
    own = _own_messages(rv)
    if not _said(own, said, reading):
        return False
    return not _said(own, kept, reading) or (bool(reading.breaks(rv.statement, said[:1]))
                                             and not reading.breaks(rv.statement, kept[:1]))


def _led_by(evidence: Evidence, said: Sequence[str], moved: set[str]) -> Evidence:
    """The pair with `said` first, the difference its cause's headline says, without those moved to causes of
    their own."""
    return evidence.model_copy(update={"differences": [*said, *(d for d in evidence.differences
                                                                  if d not in said and d not in moved)]})


def _stating(rv: RecordVerdict, said: Sequence[str], reading: Reading) -> tuple[int, int, int]:
    """The record stating a field's difference first: one whose checks name it contradicted there, then one
    whose statement the difference breaks, then the catalog's order."""
    named = any(rv.id in t.contradicted and reading.tells(d, m) for t, m in failing_checks(rv) for d in said)
    return (-named, -bool(reading.breaks(rv.statement, said[:1])), reading.rank.get(rv.id, len(reading.rank)))


__all__ = ["Reading", "stated_apart"]
