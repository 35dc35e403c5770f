"""A property the tool's inputSchema gained or lost is a change of its own, apart from what else one listing
shows.

One tools/list answer shows every change a fork made to its listing at once: a tool added beside the
sequentialthinking tool, and a property added to its schema (issue 42, held-out-multi-13's
fork-session-tools: a `thinking_status` tool and a `reset` property). A cause led by the added tool's record
held the schema's records too (OBJ-7, CMP-2, CLM-7), its headline saying the property first, and the
property's change was never a cause. Here such a cause keeps what its leading record's own check contradicts
(the tools listed), and the records whose own checks speak of the schema's properties open a cause of the
property, headed by the property's difference.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Final

from conformance.core.failure_text import readable
from conformance.report.model import RecordVerdict, RootCause

_PROPERTY: Final = re.compile(r"(?:^|\.)properties\.([A-Za-z_$][\w$]*): "
                              r"(?:absent on the original, .+ here|.+ on the original, absent here)$",
                              re.DOTALL)
"""A property one side's inputSchema has and the other's lacks, in `core/differences`' words
("result.tools[0].inputSchema.properties.reset: absent on the original, {…} here")."""
_SCHEMA_WORDS: Final = re.compile(r"\bpropert(?:y|ies)\b|\binputSchema\b")
"""A check speaking of the schema's properties (their count, types or listing)."""


def properties_apart(causes: Sequence[RootCause], records: Sequence[RecordVerdict]
                     ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """Each cause whose listing pair shows a property added or dropped beside another difference, while its
    leading record's own check names no property: the property's records moved to a cause of their own."""
    by_id = {rv.id: rv for rv in records}
    out: list[RootCause] = []
    moved: dict[str, str] = {}
    for cause in causes:
        evidence = cause.evidence
        lead = by_id.get(cause.records[0]) if cause.records else None
        if evidence is None or not evidence.reproduced or lead is None:
            out.append(cause)
            continue
        props = [d for d in evidence.differences if _PROPERTY.search(d)]
        others = [d for d in evidence.differences if d not in props]
        names = {m.group(1) for d in props if (m := _PROPERTY.search(d))}
        if not props or not others or _speaks_of(_own_words(lead), names):
            out.append(cause)
            continue
        held = {*cause.explains, *cause.records} - {lead.id}
        members = [rv for rv in records if rv.id in held and _speaks_of(_said(rv), names)]
        if not members:
            out.append(cause)
            continue
        leading, *following = members
        kept = evidence.model_copy(update={"differences": others})
        ids = [r for r in cause.records if r not in {rv.id for rv in members}]
        out.append(cause.model_copy(update={
            "records": ids,
            "explains": [r for r in cause.explains if r not in {rv.id for rv in members}],
            "summary": f"{_departs(ids)} — {kept.headline()}"[:400],
            "evidence": kept}))
        shown = evidence.model_copy(update={"differences": props, "cause": leading.id})
        out.append(RootCause(id=leading.id, records=[leading.id], explains=[rv.id for rv in following],
                             summary=f"{leading.id} departs — {shown.headline()}"[:400],
                             example=list(cause.example), test=cause.test, minimized=cause.minimized,
                             evidence=shown))
        moved |= {rv.id: leading.id for rv in following} | {leading.id: ""}
    out = [_renamed_said(cause) for cause in out]
    if not moved:
        return out, list(records)
    return out, [rv.model_copy(update={"explained_by": moved[rv.id] or None}) if rv.id in moved else rv
                 for rv in records]


def _renamed_said(cause: RootCause) -> RootCause:
    """A cause headed by a property dropped beside one added of the same type, and no other property change,
    said as the one name become the other (held-out-multi-13's fork-team-console: `branchId` served as
    `branchName`, headed "properties.branchId: … absent here; and 1 more beside it: branchName")."""
    evidence = cause.evidence
    if evidence is None or not evidence.reproduced or not evidence.differences:
        return cause
    found = [m for d in evidence.differences if (m := _PROPERTY.search(d))]
    if not found or found[0].string != evidence.differences[0]:
        return cause
    dropped = [(m.group(1), _type(m.group(0), "on the original, absent here")) for m in found
               if m.group(0).endswith("on the original, absent here")]
    added = [(m.group(1), _type(m.group(0), "here")) for m in found
             if not m.group(0).endswith("on the original, absent here")]
    if len(dropped) != 1 or len(added) != 1 or not dropped[0][1] or dropped[0][1] != added[0][1]:
        return cause
    (old, kind), (new, _) = dropped[0], added[0]
    head, _, _ = cause.summary.partition(" — ")
    _, mark, where = evidence.headline().rpartition(" (reproduced ")
    said = (f"the inputSchema's `{old}` is `{new}` here, both of type {kind}: the original lists no `{new}`, "
            f"this server no `{old}`")
    summary = f"{head} — {said}{' (reproduced ' + where if mark else ''}"
    return cause.model_copy(update={"summary": summary[:400]})


def _type(difference: str, ending: str) -> str:
    """The JSON Schema type a property difference quotes for the side that has it, empty when none is read."""
    value = difference.partition(": ")[2]
    value = value.removeprefix("absent on the original, ").removesuffix(" " + ending).removesuffix(
        " on the original, absent here")
    try:
        schema = json.loads(value)
    except ValueError:
        return ""
    kind = schema.get("type") if isinstance(schema, dict) else None
    return kind if isinstance(kind, str) else ""


def _departs(ids: Sequence[str]) -> str:
    return f"{ids[0]} departs" if len(ids) == 1 else f"{', '.join(ids)} depart"


def _said(rv: RecordVerdict) -> list[str]:
    """A record's failing checks' messages as a reader sees them, every word kept: whether a check names a
    property is asked, not what may head a line, so the words `gate/check_words` leaves out (a repr, the
    added tools' words) count here."""
    return [readable(t.message) for t in rv.tests if t.status in ("failed", "error") and t.message]


def _own_words(rv: RecordVerdict) -> list[str]:
    """What a record's own checks say of it: those naming it contradicted, else every failing one's."""
    named = [readable(t.message) for t in rv.tests
             if t.status in ("failed", "error") and t.message and rv.id in t.contradicted]
    return named or _said(rv)


def _speaks_of(messages: Sequence[str], names: set[str]) -> bool:
    """Whether messages name one of the properties, or the schema's properties at all."""
    return any(_SCHEMA_WORDS.search(m) or any(re.search(rf"\b{re.escape(n)}\b", m) for n in names)
               for m in messages)
