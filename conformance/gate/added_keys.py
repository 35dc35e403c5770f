"""An answer key a fork adds, seen only by checks' own words: the departures reading it go under its cause.

A key a fork adds only once its history is long (a notice past 100 entries) shows on no short replay: the
cause of it is headed by its leading record's check ("the answer has 1 field(s) more than …: notice"), and
every other check that met the key on the shared process said so in its own words ("an answer has 1
field(s) more than …: notice") and stood loose, framed as its own input's departure (issue 42,
held-out-multi-11's notebook: fourteen loose departures of one notice). Decided by the words the suite
writes (`suite/answers.fields_unlike`): a departure with
no fresh pair of its own showing its failure, whose line names as its difference a key the cause's headline
or its leading record's failing checks say the answer adds, goes under that cause, when exactly one cause
says that key.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from conformance.report.model import RecordVerdict, RootCause

_ADDED: Final = re.compile(r"\b\d+ field\(s\) more than [^:]*: ([\w$]+(?:, [\w$]+)*)")
"""`fields_unlike`'s words for the keys an answer adds: "1 field(s) more than thoughtNumber, …: notice"."""


def keys_added(line: str) -> set[str]:
    """The keys a check's line says an answer adds; empty for any other line. A line reading such a key's
    value differing between two answers (`reanswered`: "the answer reads notice “…”, not “…”") is left to
    its own: it says the key's value, not that the key is the departure (held-out-multi-11's notebook:
    ABS-3's content-independence check read the notice's count, where the set files ABS-3 under the
    byte limit)."""
    added = _ADDED.search(line)
    return set(added.group(1).split(", ")) if added is not None else set()


def _no_pair_of_its_own(rv: RecordVerdict) -> bool:
    """No fresh pair of the record's shows its failure: its line is all there is to place it by."""
    evidence = rv.evidence
    return evidence is None or not evidence.reproduced or evidence.not_its_failure


def under_added_keys(causes: Sequence[RootCause], records: Sequence[RecordVerdict]
                     ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """Loose departures whose own line names a key one cause says the answer adds (its headline, or its
    leading record's failing checks), and that no pair of their own places, explained by that cause."""
    by_id = {rv.id: rv for rv in records}
    said: dict[str, set[str]] = {}
    for cause in causes:
        lead = by_id.get(cause.records[0])
        lines = [cause.summary, *(t.message for t in lead.tests if t.status in ("failed", "error"))
                 ] if lead is not None else []
        keys = {k for line in lines if (found := _ADDED.search(line)) is not None
                for k in found.group(1).split(", ")}
        if keys:
            said[cause.id] = keys
    if not said:
        return list(causes), list(records)
    primary = {r for c in causes for r in c.records}
    placed: dict[str, str] = {}
    for rv in records:
        if (rv.verdict != "deviates" or rv.explained_by or rv.id in primary or rv.kind == "spec"
                or not _no_pair_of_its_own(rv)):
            continue
        mine = keys_added(rv.reason)
        homes = [cid for cid, keys in said.items() if mine and mine <= keys]
        if len(homes) == 1:
            placed[rv.id] = homes[0]
    if not placed:
        return list(causes), list(records)
    out_causes = [c.model_copy(update={"explains": [*c.explains, *(r for r, h in placed.items()
                                                                   if h == c.id and r not in c.explains)]})
                  for c in causes]
    return out_causes, [rv.model_copy(update={"explained_by": placed[rv.id]}) if rv.id in placed else rv
                        for rv in records]
