"""A departure whose own failure shows a refusal of the original's in another form (its guard's words
answered as a JSON-RPC error where the original answers an isError result) is the cause's whose pair shows
that very form, whatever call met it and whether or not a call sequence was kept to replay (issue 42:
held-out-multi-13's client-protocol answered every refusal with -32602; LOOP-B, whose check watched fresh
processes and kept no sequence, opened a second cause for the one change).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Final

from conformance.core.failure_text import readable
from conformance.core.guards import GUARD_REFUSALS
from conformance.report.model import RecordVerdict, RootCause

_ERROR_SAID: Final = re.compile(r'JSON-RPC error (?P<code>-?\d+), (?P<words>"(?:[^"\\]|\\.){1,300}")')
"""The suite's words for a JSON-RPC error a server answered (suite/answers.describe_response)."""
FORM: Final = "refused as JSON-RPC error {code}, as isError on the original"
"""The form a cause's pair shows (gate/evidence `_refusal_shown`) for the original's words as that error."""


def form_seen(rv: RecordVerdict) -> str:
    """The form a record's failing checks saw the original's guard words refused in: `FORM` with the code of
    the JSON-RPC error they quote in the original's own guard words; empty when they quote none, or several
    codes."""
    failing = [t for t in rv.tests if t.status in ("failed", "error")]
    codes: set[str] = set()
    for text in [*(t.message or "" for t in failing), *([] if failing else [rv.reason])]:
        for found in _ERROR_SAID.finditer(readable(text)):
            try:
                words = json.loads(found.group("words"))
            except ValueError:
                continue
            if words in GUARD_REFUSALS.values():
                codes.add(found.group("code"))
    return FORM.format(code=codes.pop()) if len(codes) == 1 else ""


def folded_by_form(causes: Sequence[RootCause], records: Sequence[RecordVerdict],
                   shown: Mapping[str, tuple[str, str] | None]
                   ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """A cause without a reproduced pair of its own, every record of which saw the form another cause's
    pair shows (`shown`, by cause), folds into that cause: its records and departures explained by it. A
    departure under no cause that saw it is explained by it too. Causes with a pair of their own are left
    as they are."""
    homes = {pair[1]: c.id for c in causes if (pair := shown.get(c.id)) is not None and pair[1].startswith(
        FORM.partition("{")[0])}
    if not homes:
        return list(causes), list(records)
    by_id = {rv.id: rv for rv in records}
    into: dict[str, str] = {}
    for c in causes:
        if c.id in homes.values() or (c.evidence is not None and c.evidence.reproduced):
            continue
        forms = {form_seen(by_id[r]) if r in by_id else "" for r in c.records}
        if len(forms) == 1 and (form := forms.pop()) in homes:
            into[c.id] = homes[form]
    folded = {r: into[c.id] for c in causes if c.id in into for r in [*c.records, *c.explains]}
    primary = {r for c in causes if c.id not in into for r in c.records}
    moved: dict[str, str] = {}
    for rv in records:
        if rv.id in folded:
            moved[rv.id] = folded[rv.id]
        elif rv.explained_by in into:
            moved[rv.id] = into[rv.explained_by or ""]
        elif (rv.verdict == "deviates" and rv.kind != "spec" and not rv.explained_by and rv.id not in primary
              and (form := form_seen(rv)) in homes):
            moved[rv.id] = homes[form]
    if not moved:
        return list(causes), list(records)
    kept = [c.model_copy(update={"explains": [*c.explains, *(r for r, home in moved.items()
                                                             if home == c.id and r not in c.explains)]})
            for c in causes if c.id not in into]
    return kept, [rv.model_copy(update={"explained_by": moved[rv.id]}) if rv.id in moved else rv
                  for rv in records]


__all__ = ["FORM", "folded_by_form", "form_seen"]
