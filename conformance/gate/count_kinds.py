"""A count that leaves one kind of call out, said under the record stating that kind counts.

A fork answering thoughtHistoryLength without the branch thoughts (the history itself kept whole) shows one
pair: the count one lower than the original's on a branching call, every call before it counted alike
(issue 42, held-out-multi-18's branch-board). The grouping headed that cause by OBJ-2, whose statement (the
array is appended and never pruned) reads as a thought not stored, while OBJ-4/a2 ("counts accepted calls -
revisions, branches and separate thinking episodes alike") states the rule the count broke, and departed, and
stood under OBJ-2. Here such a cause is led by the departing record whose statement names the count and the
kind of call the count left out, and its headline says which kind of call it was.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from typing import Final

from conformance.report.model import RecordVerdict, RootCause

COUNT: Final = "thoughtHistoryLength"
_LOWER: Final = re.compile(rf"(?:^|→ ){COUNT}: (?P<was>\d+) on the original, (?P<now>\d+) here$")
"""A pair's difference of the count, as `core/differences` says it."""
_NTH_CALL: Final = re.compile(r"\btools/call (\d+)\b")
KINDS: Final[Mapping[str, tuple[str, str]]] = {
    "branch": ("branches", "a branching call (branchFromThought and branchId set)"),
    "revision": ("revisions", "a revision (isRevision true)"),
}
"""A kind of call: the word a statement names it by, and how a headline says it."""
MAX_FRAME: Final = 1_000_000
"""The longest frame read (characters): a kept example is hostile data."""


def _arguments(frame: str) -> Mapping[str, object] | None:
    """A tools/call frame's arguments, None for any other frame or one unread."""
    if len(frame) > MAX_FRAME:
        return None
    try:
        parsed = json.loads(frame)
    except ValueError:
        return None
    if not isinstance(parsed, dict) or parsed.get("method") != "tools/call":
        return None
    params = parsed.get("params")
    arguments = params.get("arguments") if isinstance(params, dict) else None
    return arguments if isinstance(arguments, dict) else None


def kind_of(arguments: Mapping[str, object]) -> str:
    """The kind of call a thought was sent as, as the original reads its fields (JavaScript truthiness of a
    number or a string): a revision, a branch, else none."""
    def truthy(value: object) -> bool:
        return bool(value) and value is not False
    if arguments.get("isRevision") is True:
        return "revision"
    if truthy(arguments.get("branchFromThought")) and truthy(arguments.get("branchId")):
        return "branch"
    return ""


def count_left_out(cause: RootCause) -> str:
    """The kind of call a cause's pair shows the count leaving out: the count lower here on that call, the
    first that differs, after at least one call of no kind, which both sides counted alike; else empty."""
    evidence = cause.evidence
    if (evidence is None or not evidence.reproduced or evidence.not_its_failure or not evidence.differences
            or len(evidence.differences) != 1):
        return ""
    if not cause.summary.partition(" — ")[2].startswith(f"{COUNT}: "):
        return ""  # a headline saying more than the pair (a cap, a count falling): that change's words
    lower = _LOWER.search(evidence.differences[0])
    nth = _NTH_CALL.search(evidence.at)
    if lower is None or nth is None or int(lower["now"]) >= int(lower["was"]):
        return ""
    calls = [a for a in map(_arguments, cause.example or evidence.example) if a is not None]
    index = int(nth.group(1)) - 1
    if not 0 < index < len(calls):
        return ""
    kind = kind_of(calls[index])
    return kind if kind and any(not kind_of(a) for a in calls[:index]) else ""


_FROM_TO: Final = re.compile(r"\bfrom (\d+) to (\d+)\b")
_READ: Final = re.compile(rf"\b{COUNT} read (\d+(?:, \d+)+)")


def count_fell(message: str) -> bool:
    """Whether a check's words show the count falling between two answers (“took thoughtHistoryLength from
    50 to 49”, “read 4, 4, 3, …”): thoughts gone from the store, not a kind of call left out of the count."""
    if any(int(b) < int(a) for a, b in _FROM_TO.findall(message)):
        return True
    return any(any(int(y) < int(x) for x, y in itertools.pairwise(ns))
               for found in _READ.findall(message) if (ns := found.split(", ")))


def _falls(rv: RecordVerdict) -> bool:
    return any(count_fell(t.message) for t in rv.tests if t.status in ("failed", "error") and t.message)


def _states(rv: RecordVerdict, kind: str) -> bool:
    """Whether a record's statement says the count counts that kind of call (“thoughtHistoryLength counts
    accepted calls … - revisions, branches …”), not merely names both (OBJ-4's five fields)."""
    return re.search(rf"\b{COUNT} counts\b[^.]*\b{KINDS[kind][0]}\b", rv.statement) is not None


def led_by_the_kind(causes: Sequence[RootCause], records: Sequence[RecordVerdict]
                    ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """Each cause whose pair shows the count leaving one kind of call out (`count_left_out`), led by a
    departing record of it, or under no cause, whose statement names the count and that kind: that record
    leads, the old lead explained by it, and the headline says the kind of call."""
    by_id = {rv.id: rv for rv in records}
    leads = {r for c in causes for r in c.records}
    renamed: dict[str, str] = {}
    out: list[RootCause] = []
    for cause in causes:
        kind = count_left_out(cause)
        members = [*cause.explains, *(rv.id for rv in records if not rv.explained_by and rv.id not in leads)]
        stating = next((r for r in members if r in by_id and by_id[r].verdict == "deviates"
                        and _states(by_id[r], kind)), None) if kind else None
        if (stating is None or any(_states(by_id[r], kind) for r in cause.records if r in by_id)
                or any(_falls(by_id[r]) for r in [*cause.records, stating] if r in by_id)):
            out.append(cause)
            continue
        renamed[cause.id] = stating
        said = cause.summary.partition(" — ")[2]
        where = " (reproduced" if " (reproduced" in said else ""
        head, _, tail = said.partition(where) if where else (said, "", "")
        summary = f"{stating} departs — {head}, on {KINDS[kind][1]}, where the calls before it counted alike"
        out.append(cause.model_copy(update={
            "id": stating, "records": [stating],
            "summary": (summary + (where + tail if where else ""))[:400],
            "explains": [*cause.records, *(r for r in cause.explains if r != stating)],
            "evidence": cause.evidence and cause.evidence.model_copy(update={"cause": stating})}))
    if not renamed:
        return list(causes), list(records)
    updated: list[RecordVerdict] = []
    for rv in records:
        if rv.id in renamed.values():
            rv = rv.model_copy(update={"explained_by": None})
        elif rv.id in renamed:
            rv = rv.model_copy(update={"explained_by": renamed[rv.id]})
        elif rv.explained_by in renamed:
            rv = rv.model_copy(update={"explained_by": renamed[rv.explained_by]})
        updated.append(rv)
    return out, updated
