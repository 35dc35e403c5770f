"""A runtime error's message renamed by another change: that change's departure, never a cause of its own.

A fork that files branch labels another way rewrote the code that files them, and the runtime error that code
throws on a label naming an Object.prototype member now names its new variable: "this.branches[label].push
is not a function" where the original says "this.branches[validatedInput.branchId].push …" (issue 42,
held-out-multi-10's fork-dashboard-display, RTE-8/a1 led a cause of its own beside the slug change's). Two
runtime errors alike but for one identifier path inside the expression that indexes a store are the change
of how that store is keyed: the departure goes under the one cause whose pair shows that store's entries
changed. Two such causes, or none, leave it where it was (its own line says the rename truly).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from conformance.report.model import Evidence, RecordVerdict, RootCause

_REWORDED: Final = re.compile(
    r"^both refuse this call, in other words: “([^”]*)” on the original, “([^”]*)” here$")
"""Both sides refusing one call in words neither marks as a rule's (`core/differences`)."""
_NAME: Final = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
"""An identifier path, `validatedInput.branchId`: what a rename changes, never a value or a sentence."""
_INDEXED: Final = re.compile(r"([A-Za-z_$][\w$]*)\[([^\[\]]+)\]")
"""A store indexed by an expression: `branches[validatedInput.branchId]` → (`branches`, the expression)."""


def renamed_store(difference: str) -> str:
    """The store whose key expression two runtime errors name differently, else empty: the words alike but
    for one identifier path inside `store[…]`: never rule words ("Invalid …"), a value or a sentence."""
    found = _REWORDED.match(difference)
    if found is None:
        return ""
    original, here = found.group(1), found.group(2)
    if original.startswith("Invalid ") or here.startswith("Invalid "):
        return ""

    def masked(words: str) -> str:
        return _INDEXED.sub(lambda m: f"{m.group(1)}[]", words)

    if masked(original) != masked(here):
        return ""
    renamed = [(a[0], a[1], b[1]) for a, b in zip(_INDEXED.findall(original), _INDEXED.findall(here),
                                                  strict=True) if a[1] != b[1]]
    if len(renamed) != 1:
        return ""
    store, old, new = renamed[0]
    return store if _NAME.match(old) and _NAME.match(new) else ""


def _store_changed(evidence: Evidence | None, store: str) -> bool:
    """The pair shows the store's entries differing (`→ branches[0]: …`, `→ branches: …`)."""
    if evidence is None or not evidence.reproduced:
        return False
    pattern = re.compile(rf"(?:^|→ ){re.escape(store)}(?:\[\d+\])?:")
    return any(pattern.search(d) for d in evidence.differences)


def _shown(cause: RootCause, by_id: dict[str, RecordVerdict]) -> Evidence | None:
    """The cause's pair, else its leading record's own."""
    if cause.evidence is not None and cause.evidence.reproduced:
        return cause.evidence
    lead = by_id.get(cause.records[0])
    return lead.evidence if lead is not None else None


def renamed_under_their_change(
    causes: Sequence[RootCause], records: Sequence[RecordVerdict]
) -> tuple[list[RootCause], list[RecordVerdict]]:
    """Each cause led alone by a renamed runtime error goes under the one cause showing its store re-keyed;
    what it explained goes with it."""
    by_id = {rv.id: rv for rv in records}
    homes: dict[str, str] = {}
    for cause in causes:
        shown = _shown(cause, by_id)
        if cause.records != [cause.records[0]] or shown is None or not shown.differences:
            continue
        store = renamed_store(shown.differences[0])
        if not store:
            continue
        keyed = [c.id for c in causes if c is not cause and _store_changed(_shown(c, by_id), store)]
        if len(keyed) == 1:
            homes[cause.id] = keyed[0]
    if not homes:
        return list(causes), list(records)
    moved = {r: homes[c.id] for c in causes if c.id in homes for r in [*c.records, *c.explains]}
    out_causes = [c.model_copy(update={"explains": [*c.explains, *(r for r, h in moved.items()
                                                                   if h == c.id)]})
                  for c in causes if c.id not in homes]
    out = [rv.model_copy(update={"explained_by": moved[rv.id]}) if rv.id in moved else rv for rv in records]
    return out_causes, out
