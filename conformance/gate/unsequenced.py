"""Departures no call sequence shows, each change among them a cause of its own.

A check that reads the files a server's processes wrote, what initialize advertises (capabilities,
serverInfo, instructions), a listing, or stderr at start keeps no sequence of calls to replay: its own
failure, in its words, is its evidence. Left loose after every other placement, such a departure opened a
cause only when it was the one departure left (issue 42: fork-remembered-labels' labels file and its
`experimental` capability, two changes, stayed two loose lines). Here each one left is its own change: it
opens a cause headed by its check's words, unless a cause's headline already says its subject, and
departures naming the same subject (the same files written, the same field of the same answer) share one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from conformance.calls.other_tools import outside
from conformance.core.failure_text import FILES_WRITTEN, is_run_again, readable, spoken
from conformance.gate.check_words import check_messages
from conformance.report.model import RecordVerdict, RootCause

_PART: Final = r"[A-Za-z_$][\w$]*(?:\[\d+\])?"
_FIELD: Final = re.compile(rf"(?<![\w$.\]\"])({_PART}(?:\.{_PART})*): ")
"""A field named before its value, unquoted (a JSON key quoted inside a value is none)."""
_ORIGINAL_SIDE: Final = " on the original, "
"""Where `core/differences` says the original's side ("capabilities.logging: absent on the original, {}
here"): the field is the last one named before it."""
_PATH: Final = re.compile(r"(?:^|[\s,:])((?:\.|\$[A-Z_]+)?/[^\s,;()]+)")
"""A file the server wrote, as `FILES_WRITTEN`'s list names it: an absolute path, or one in a process's own
folders (`./data.json`, `$TMPDIR/history.json`, `$HOME/.notes`)."""
_AT_START: Final = re.compile(r"^(stderr|stdout) (?:reads|carried) .* before any request\b")
"""What a process writes at start, before it is asked anything (`suite/test_lifecycle`'s words)."""
_GENERIC: Final = frozenset({"result", "the answer", "stderr", "stdout"})
"""Field names every difference may start with: no subject of its own."""


def unsequenced_causes(causes: Sequence[RootCause], records: Sequence[RecordVerdict]
                       ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """The departures left loose whose checks kept no call sequence, placed: under a cause whose headline
    names their subject, else a cause each, shared by those naming the same subject (the first, in the order
    given, leads)."""
    out_causes = list(causes)
    primary = {r for c in out_causes for r in c.records}
    placed: dict[str, str] = {}
    opened: list[tuple[frozenset[str], int]] = []
    for rv in records:
        if rv.id in primary or not _unsequenced(rv):
            continue
        said = check_messages(rv)
        subject = _subject(said[0])
        if not subject:
            continue  # no subject read without calls: its own line, as before
        home = next((c for c in out_causes if _names(c, subject)), None)
        if home is None:
            shared = next((i for keys, i in opened if keys & subject), None)
            if shared is None:
                opened.append((subject, len(out_causes)))
                out_causes.append(_opened(rv))
                primary.add(rv.id)
                continue
            home = out_causes[shared]
        placed[rv.id] = home.id
    if not placed:
        return out_causes, list(records)
    explains: dict[str, list[str]] = {}
    for record, cause_id in placed.items():
        explains.setdefault(cause_id, []).append(record)
    out_causes = [c.model_copy(update={"explains": [*c.explains, *explains.get(c.id, [])]})
                  if c.id in explains else c for c in out_causes]
    return out_causes, [rv.model_copy(update={"explained_by": placed[rv.id]}) if rv.id in placed else rv
                        for rv in records]


def _unsequenced(rv: RecordVerdict) -> bool:
    """A departure under no cause whose evidence is its own failure (no sequence of calls shows it), said by
    a check that failed on it, not a flaky example's."""
    evidence = rv.evidence
    if (rv.verdict != "deviates" or rv.kind == "spec" or rv.explained_by or evidence is None
            or not evidence.own_failure or evidence.reproduced):
        return False
    said = check_messages(rv)
    return bool(said) and not is_run_again(said[0])


def _subject(message: str) -> frozenset[str]:
    """What a check without calls found changed: the files written (by name), else the fields its words say
    differ (by their last part, so `experimental` and `capabilities.experimental` meet), else the stream a
    process writes at start; nothing else (a box's form, a refusal's words: any change's, which a cause of
    its own would repeat: held-out-multi-12's fork-thought-log, LOOP-B beside the CRLF box's CMP-5)."""
    if message.startswith(FILES_WRITTEN):
        return frozenset(f"file {path.rstrip('.').rsplit('/', 1)[-1]}"
                         for path in _PATH.findall(message[len(FILES_WRITTEN):]))
    fields = {_tail(named[-1]) for part in message.split(_ORIGINAL_SIDE)[:-1]
              if (named := [f for f in _FIELD.findall(part) if f.lower() not in _GENERIC])}
    if fields:
        return frozenset(f"field {f}" for f in fields)
    start = _AT_START.search(message)
    return frozenset({f"{start.group(1)} at start"}) if start else frozenset()


def _tail(field: str) -> str:
    """A field's last part, an index aside: where two checks' paths to one field agree."""
    return re.sub(r"\[\d+\]", "", field).rsplit(".", 1)[-1]


def _names(cause: RootCause, subject: frozenset[str]) -> bool:
    """Whether a cause's headline already says this subject: the same file, or the same field differing."""
    said = cause.summary.partition(" — ")[2]
    return bool(said) and bool(subject & _subject(said))


def _opened(rv: RecordVerdict) -> RootCause:
    """A cause led by the departure, headed by its first failing check's words (its evidence is that)."""
    failing = [t for t in rv.tests if t.status in ("failed", "error") and t.message]
    said = spoken(outside(readable(failing[0].message)), failing[0].nodeid, 240) if failing else rv.reason
    if len(failing) > 1:
        said += f" ({len(failing)} checks fail)"
    ce = rv.counterexample
    evidence = rv.evidence
    return RootCause(id=rv.id, records=[rv.id], explains=[], summary=f"{rv.id} departs — {said}"[:400],
                     example=list(evidence.example) if evidence is not None else [],
                     test=ce.test if ce is not None else None,
                     minimized=ce.minimized if ce is not None else False,
                     evidence=None if evidence is None else evidence.model_copy(update={"cause": rv.id}))
