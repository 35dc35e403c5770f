"""Root causes of a run: the fewest departing behaviours that account for every failing test.

A failing test that names the record it contradicts (`suite/contradiction.py`) is accounted for by that
record; else one that relies (`relies_on`) on a departing record by that reliance — the behaviour it took
for granted changed under it, unless the run's checks name that record where they see it broken (more often
than failures lean on it silently) and this failure did not (it held here: a fork changing many things fails
this test on another change); else by the records it evidences. A departing record that passes a test on
clean ground (nothing it relies on departs, bar its own base record) and fails none there by itself is
taken as unchanged — a victim of the other departures — and is a cause only when nothing else can account
for a failure. Causes are chosen greedily — the departing record that accounts for the most failing tests
not yet accounted for, ties broken towards records with evidence of their own change, then records
failing their own tests, then the base record before its amendments — until every failing test is
accounted for; before a record without such evidence opens another cause, the failures touching records
an existing cause accounts for join that cause (one change seen through many tests). A cause whose own
failing tests are all accounted for by another cause is that cause's consequence (a chain of reliances)
and folds into it; so does a cause failing its tests the same way (the same message, numbers aside) as a
larger one. Every other departing record is *explained by* the cause accounting for most of its failing
tests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from conformance.core.failure_text import run_again, spoken
from conformance.core.results import RunResults, TestOutcome
from conformance.gate.verdicts import is_advisory, smallest_counterexample
from conformance.report.model import RecordVerdict, RootCause

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z_]{3,}")
_GENERIC_WORDS = frozenset({"AssertionError", "assert", "and", "not", "the", "True", "False", "None"})
_SIGNATURE_CHARS = 160
_QUOTED = re.compile(r"[\[{(\"'“‘«]")


@dataclass(frozen=True)
class _Failure:
    """One failing test, with the departing records that could have made it fail."""

    outcome: TestOutcome
    evidenced: frozenset[str]
    relied: frozenset[str]
    blamed: frozenset[str] = frozenset()
    candidates: frozenset[str] = frozenset()

    @property
    def named(self) -> frozenset[str]:
        """The departing records this failure is evidence against: those it evidences and those it blames."""
        return self.evidenced | self.blamed


@dataclass
class _Cause:
    records: list[str]
    covers: list[_Failure]
    explains: list[str] = field(default_factory=list)


def signature(message: str) -> str:
    """How a test failed, numbers masked (counts and positions vary with the input, the failure does not);
    empty when the message says too little to tell one failure from another (`assert x == y`)."""
    text = " ".join(message.strip().splitlines()[0].split()) if message.strip() else ""
    words = {w for w in _WORD.findall(text) if w not in _GENERIC_WORDS}
    if len(words) < 3:
        return ""
    return _NUMBER.sub("N", text)[:_SIGNATURE_CHARS]


def find_root_causes(
    verdicts: Sequence[RecordVerdict],
    results: RunResults | None,
    canonical: Mapping[str, str],
) -> tuple[list[RootCause], dict[str, str]]:
    """The root causes, leading with the one that explains most, and record ID → the cause explaining it."""
    # A departure that does not gate (guidance the original departs from too) is no fork's behaviour change.
    deviating = [rv.id for rv in verdicts if rv.verdict == "deviates" and not is_advisory(rv)]
    if results is None or not deviating:
        return [], {}
    order = {rid: i for i, rid in enumerate(deviating)}
    failures = _failures(results.tests, set(deviating), canonical)
    if not failures:
        return [], {}
    watched = _watched(failures)
    strong = _changed_by_themselves(failures, watched)
    intact = _intact(results.tests, strong, set(deviating), canonical)
    leans = _leans_on(results.tests, set(deviating), canonical)
    failures = [_with_candidates(f, intact, leans, watched) for f in failures]
    failures = _same_way(failures)
    causes = _merge_same_signature(_fold_chains(_cover(failures, order, strong)))
    by_record = _explain(causes, failures, deviating)
    out = [_root_cause(cause) for cause in causes]
    explained_by = {record: out[index].id for record, index in by_record.items()}
    order_out = sorted(range(len(out)), key=lambda i: (-len(out[i].explains), order[out[i].records[0]]))
    return [out[i] for i in order_out], explained_by


def _canonical(ids: Sequence[str], canonical: Mapping[str, str]) -> set[str]:
    return {canonical.get(i, i) for i in ids}


def _failures(
    tests: Sequence[TestOutcome], deviating: set[str], canonical: Mapping[str, str]
) -> list[_Failure]:
    out: list[_Failure] = []
    for outcome in tests:
        if outcome.status != "failed":
            continue
        evidenced = _canonical(outcome.records, canonical) & deviating
        blamed = _canonical(outcome.contradicted, canonical) & deviating
        if not evidenced and not blamed:
            continue
        relied = (_canonical(outcome.relies, canonical) & deviating) - evidenced
        out.append(_Failure(outcome, frozenset(evidenced), frozenset(relied), frozenset(blamed)))
    return out


def _watched(failures: list[_Failure]) -> set[str]:
    """Departing records the run's checks name where they see them broken: named as contradicted by more
    failing tests than rely on them without naming them (a record named once while a dozen failures lean
    on it silently is read around the helpers that watch it, and stays a candidate; so does one named as
    often as it is leaned on, one check against one)."""
    named: dict[str, int] = {}
    silent: dict[str, int] = {}
    for f in failures:
        for r in f.blamed:
            named[r] = named.get(r, 0) + 1
        for r in f.relied - f.blamed:
            silent[r] = silent.get(r, 0) + 1
    return {r for r, n in named.items() if n > silent.get(r, 0)}


def _changed_by_themselves(failures: list[_Failure], watched: set[str]) -> set[str]:
    """Records with evidence of their own change: a failure that names the record it contradicts, or a
    test evidencing it alone among the departures that fails with nothing it relies on departing, bar the
    reliances the run's checks name where they see them broken (`watched`), which this failure did not."""
    strong: set[str] = set()
    for f in failures:
        if f.blamed:
            strong |= f.blamed
        elif not (f.relied - watched) and len(f.evidenced) == 1:
            strong |= f.evidenced
    return strong


def _intact(
    tests: Sequence[TestOutcome], strong: set[str], deviating: set[str], canonical: Mapping[str, str]
) -> set[str]:
    """Departing records that look unchanged themselves: one of their tests passes on clean ground (with
    nothing it relies on departing but the base record its amendment refines) and none fails by itself
    there. A record that truly changed fails its plainest test; one that fails only beside other
    departures, or inside tests leaning on them, is their victim."""
    clean_pass: set[str] = set()
    for outcome in tests:
        evidenced = _canonical(outcome.records, canonical)
        bases = {_base(r) for r in evidenced}
        if outcome.status == "passed" and not (_canonical(outcome.relies, canonical) & deviating) - bases:
            clean_pass |= evidenced & deviating
    return clean_pass - strong


def _base(record: str) -> str:
    """The record an amendment or correction annotates (`RTE-3/a1` → `RTE-3`); a base record itself."""
    return record.split("/", 1)[0]


def _leans_on(
    tests: Sequence[TestOutcome], deviating: set[str], canonical: Mapping[str, str]
) -> set[tuple[str, str]]:
    """(a, b): some test evidencing a declares it relies on b (both departing), whether it failed or not."""
    leans: set[tuple[str, str]] = set()
    for outcome in tests:
        evidenced = _canonical(outcome.records, canonical) & deviating
        relied = _canonical(outcome.relies, canonical) & deviating
        leans |= {(a, b) for a in evidenced for b in relied if a != b}
    return leans


def _with_candidates(
    failure: _Failure, intact: set[str], leans: set[tuple[str, str]], watched: set[str]
) -> _Failure:
    """The record it names as contradicted, if any; else its departing reliances if any is plausible, else
    the departing records it evidences. An evidenced record that a relied-on one leans on in turn (a
    reliance cycle: validation and the error object each assume the other) stays a candidate too: the test
    cannot tell which of the two moved. A reliance the run's checks name where they see it broken
    (`watched`: some failure names it as contradicted) is no candidate for a failure that does not name it:
    the shared helpers read it on this test's calls too and found it holding, so in a fork that changes
    many things the test failed on its own record, not on that one."""
    relied = failure.relied - intact - watched
    cyclic = {e for e in failure.evidenced - intact if any((r, e) in leans for r in relied)}
    pools = (failure.blamed, relied | cyclic, failure.evidenced - intact, failure.relied | failure.evidenced)
    pool = next((p for p in pools if p), frozenset())
    return replace(failure, candidates=frozenset(pool))


def stem(message: str) -> str:
    """What a failure says before it quotes a value (`non-string branch label in [...]`), numbers masked:
    checks that fail the same way on different data share it; empty when it is under three words."""
    text = " ".join(message.strip().splitlines()[0].split()) if message.strip() else ""
    head = _NUMBER.sub("N", _QUOTED.split(text, 1)[0]).strip()
    return head if len(_WORD.findall(head)) >= 3 else ""


def _same_way(failures: list[_Failure]) -> list[_Failure]:
    """A failure naming no contradicted record, among whose departing records some record's own checks (it
    alone among the departures evidenced) fail the same way (`stem`), is the record's whose own checks
    fail that way most often: the helper that saw it broken there saw it broken here. A broad reliance
    every check leans on, whose own checks failed otherwise, no longer accounts for them all."""
    own: dict[str, dict[str, int]] = {}
    for f in failures:
        said = stem(f.outcome.message)
        if said and not f.blamed and len(f.evidenced) == 1:
            counts = own.setdefault(said, {})
            for record in f.evidenced:
                counts[record] = counts.get(record, 0) + 1
    out: list[_Failure] = []
    for f in failures:
        seen = f.evidenced | f.relied
        counts = {r: n for r, n in own.get(stem(f.outcome.message), {}).items() if r in seen}
        if counts and not f.blamed:
            most = max(counts.values())
            f = replace(f, candidates=frozenset(r for r, n in counts.items() if n == most))
        out.append(f)
    return out


def _cover(failures: list[_Failure], order: Mapping[str, int], strong: set[str]) -> list[_Cause]:
    """Greedy set cover of the failing tests by departing records (see the module docstring). Before a
    record without evidence of its own change opens another cause, the failures it would account for that
    touch an existing cause's records join that cause: one change is seen through many tests."""
    uncovered = list(failures)
    causes: list[_Cause] = []
    while uncovered:
        reach: dict[str, list[_Failure]] = {}
        for failure in uncovered:
            for record in failure.candidates:
                reach.setdefault(record, []).append(failure)
        best = min(reach, key=lambda record: _rank(record, reach[record], order, strong))
        joined = [] if best in strong else _join(reach[best], causes)
        if joined:
            uncovered = [f for f in uncovered if all(f is not g for g in joined)]
            continue
        covered_ids = {id(f) for f in reach[best]}
        causes.append(_Cause(records=[best], covers=reach[best]))
        uncovered = [f for f in uncovered if id(f) not in covered_ids]
    return causes


def _join(failures: list[_Failure], causes: list[_Cause]) -> list[_Failure]:
    """Each failure that touches records a cause already accounts for joins the cause touching most: a
    record it evidences that the cause's failing tests evidence too, or a record it relies on that the
    cause accounts for by itself (`_touched`)."""
    joined: list[_Failure] = []
    for failure in failures:
        overlaps = [len(failure.evidenced & _touched(cause, readers=True))
                    + len(failure.relied & _touched(cause)) for cause in causes]
        if overlaps and max(overlaps) > 0:
            causes[overlaps.index(max(overlaps))].covers.append(failure)
            joined.append(failure)
    return joined


def _touched(cause: _Cause, readers: bool = False) -> set[str]:
    """A cause's records and every departing record its failing tests evidence, bar (unless `readers`) the
    tests that name another record as contradicted: such a check says which record it saw broken, and the
    record it evidences was only the reader. A failure of that same record joins the cause (one change
    seen through its checks); a failure merely leaning on it does not (in a fork that changes many things,
    the answer-shape check leaning on acceptance, whose check saw the count fall, is another change)."""
    return set(cause.records) | {r for f in cause.covers if readers or not f.blamed for r in f.evidenced}


def _rank(
    record: str, covered: list[_Failure], order: Mapping[str, int], strong: set[str]
) -> tuple[int, int, int, int, int]:
    """Most failing tests accounted for; then evidence of its own change; then most failing on its own;
    then most evidenced; catalog order."""
    own = sum(record in f.evidenced and not f.relied for f in covered)
    evidenced = sum(record in f.evidenced for f in covered)
    return (-len(covered), -(record in strong), -own, -evidenced, order[record])


def _fold_chains(causes: list[_Cause]) -> list[_Cause]:
    """Smallest first: a cause whose records' own failing tests are all covered by other causes folds into
    the one covering most of them (its departure follows from that one's)."""
    remaining = sorted(causes, key=lambda c: len(c.covers))
    index = 0
    while index < len(remaining):
        cause = remaining[index]
        own = [f for other in remaining for f in other.covers if f.named & set(cause.records)]
        mine = {id(f) for f in cause.covers}
        others = [c for c in remaining if c is not cause]
        if own and others and not any(id(f) in mine for f in own):
            target = max(others, key=lambda c: sum(any(f is g for g in c.covers) for f in own))
            target.covers.extend(cause.covers)
            remaining.remove(cause)
            index = 0
            continue
        index += 1
    return sorted(remaining, key=lambda c: -len(c.covers))


def _merge_same_signature(causes: list[_Cause]) -> list[_Cause]:
    """One change fails its tests the same way: a later cause failing like an earlier (larger) one is that
    cause seen again, so its records become the earlier cause's dependents."""
    merged: list[_Cause] = []
    seen: dict[str, _Cause] = {}
    for cause in causes:
        signatures = {signature(f.outcome.message) for f in cause.covers} - {""}
        target = next((seen[s] for s in sorted(signatures) if s in seen), None)
        if target is None:
            merged.append(cause)
            target = cause
        else:
            target.covers.extend(cause.covers)
        for sig in signatures:
            seen.setdefault(sig, target)
    return merged


def _explain(causes: list[_Cause], failures: list[_Failure], deviating: list[str]) -> dict[str, int]:
    """Each departing record that is no cause's primary → the cause accounting for most of its failures."""
    primary = {r for cause in causes for r in cause.records}
    by_record: dict[str, int] = {}
    for record in deviating:
        if record in primary:
            continue
        own = [f for f in failures if record in f.named]
        if not own:
            continue
        counts = [sum(any(f is g for g in cause.covers) for f in own) for cause in causes]
        best = max(range(len(causes)), key=lambda i: (counts[i], -i))
        if counts[best] == 0:
            continue
        by_record[record] = best
        causes[best].explains.append(record)
    return by_record


def _root_cause(cause: _Cause) -> RootCause:
    own = [f.outcome for f in cause.covers if f.named & set(cause.records)]
    own = own or [f.outcome for f in cause.covers]
    example = smallest_counterexample(own)
    first = example.test if example is not None else own[0].nodeid
    message = next((t.message for t in own if t.nodeid == first), own[0].message)
    tests = len({f.outcome.nodeid for f in cause.covers})
    said = spoken(run_again(message), first, 240)
    summary = f"{', '.join(cause.records)} departs — {said}"
    if tests > 1:
        summary += f" ({tests} checks fail)"
    return RootCause(
        id="+".join(cause.records),
        records=list(cause.records),
        explains=list(cause.explains),
        summary=summary[:400],
        example=example.replay if example is not None else [],
        test=first,
        minimized=example is not None,
    )
