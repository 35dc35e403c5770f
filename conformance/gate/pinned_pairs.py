"""The baseline's pinned pairs: the call that made each entry depart, held against what this run's departures
reproduced, so the record whose check meets a change does not decide the verdict (issue 43).

An entry's witness is its record's canonical calls; the change that made it depart may show only on another
call (a branch three deep, a 26th thought in ten seconds). Under another seed the search meets that call
through another record's check: round 10's branch-depth fork pinned RTE-3's canonical witness, and under dev
seed 33 CMP-1's check met the same "branches nest at most 2 deep" refusal and was "new CMP-1". A baseline
entry therefore also pins its own reproduced pair (`PinnedPair`, written by `conformance baseline`), and:

- an unlisted departure whose own reproduced pair differs from the original's exactly as an entry's pinned
  pair did (the same difference keys, and the same refusal words, numbers aside) is that entry's (covered);
- an entry the search saw hold is re-observed when a departure of this run reproduced the difference a pair
  of its entry pinned: the change is still there, another check met it.

The unmodified original departs on nothing, so no pair is met and every entry is still stale.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from conformance.core.differences import refusal
from conformance.core.printable import writable
from conformance.core.served import read_served
from conformance.gate.baseline import (
    DEPARTURES,
    PAIR_CHARS,
    Baseline,
    PinnedPair,
    canonical_entries,
    folded_owners,
)
from conformance.gate.pinned import evidence_keys
from conformance.gate.verdicts import is_advisory
from conformance.report.model import Evidence, RecordVerdict

_DIFFERENCES_KEPT: Final = 20
_DIFFERENCE_CHARS: Final = 400


def pinned_pair(rv: RecordVerdict) -> PinnedPair | None:
    """The record's reproduced pair as a baseline pins it; None when its evidence reproduced nothing, is not
    where its checks failed (another change shows first on its sequence), or is too long to pin."""
    evidence = rv.evidence
    if not _own_pair(evidence) or evidence is None:
        return None
    original, target = writable(evidence.original), writable(evidence.target)
    if len(original) + len(target) > PAIR_CHARS:
        return None
    return PinnedPair(at=writable(evidence.at[:200]), original=original, target=target,
                      differences=[writable(d[:_DIFFERENCE_CHARS])
                                   for d in evidence.differences[:_DIFFERENCES_KEPT]])


def _own_pair(evidence: Evidence | None) -> bool:
    return (evidence is not None and evidence.reproduced and not evidence.not_its_failure
            and bool(evidence.original) and bool(evidence.target))


def pair_difference(original: str, target: str, differences: Sequence[str]) -> frozenset[str]:
    """What a pair differs about (`evidence_keys`), with the words of each side's refusal (numbers read as
    one): two refusals of one field for different rules ("must be less than thoughtNumber", "nest at most 2
    deep") are different changes. Beside a refusal, stderr is not a difference of its own. A lone surrogate
    is read as the escape a baseline's YAML pins it by (`pinned_pair`)."""
    original, target = writable(original), writable(target)
    keys = set(evidence_keys(original, target, [writable(d) for d in differences]))
    for side, text in (("original", original), ("target", target)):
        words = _refusal_words(text)
        if words:
            keys.add(f"{side} refuses: {words}")
    if any(key.startswith(_REFUSAL_KEYS) for key in keys):
        # A refused call draws no box where the other side's accepted one does: whether the replay's stderr
        # was compared (it is on some pairs, not others) says nothing more about the change.
        keys.discard("stderr")
    return frozenset(keys)


_REFUSAL_KEYS: Final = ("refused by ", "original refuses: ", "target refuses: ", "validation order: ",
                        "refusal words: ")
"""The keys a refusal on either side gives (core/differences.difference_keys and the words here)."""


def _refusal_words(text: str) -> str:
    try:
        found = refusal(read_served(text, "answer"))
    except ValueError:
        return ""
    return re.sub(r"\d+", "#", found.words.strip()) if found is not None else ""


def _difference_of(pair: PinnedPair) -> frozenset[str]:
    return pair_difference(pair.original, pair.target, pair.differences)


def met_pairs(verdicts: Sequence[RecordVerdict], baseline: Baseline | None, canonical: Mapping[str, str],
              settled: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The unlisted departures an entry's pinned pair covers (mapped to the entry's canonical record), and
    the listed records the search saw hold whose entry's pinned difference a departure of this run reproduced
    (mapped to why they are not stale). `settled`: unlisted departures already covered or seen once."""
    if baseline is None:
        return {}, {}
    entries = canonical_entries(baseline, canonical)
    owners = folded_owners(baseline, canonical)
    # Every entry root that pinned a difference: two entries folded under different roots may pin the same
    # one (a whitespace thought refused, met by OBJ-4's probe and by OBJ-4/a2's official-client check), and
    # a departure showing it again re-observes both.
    pinned: dict[frozenset[str], list[str]] = {}
    for rid, entry in entries.items():
        if entry.pair is not None:
            difference = _difference_of(entry.pair)
            roots = pinned.setdefault(difference, []) if difference else []
            if difference and owners.get(rid, rid) not in roots:
                roots.append(owners.get(rid, rid))
    if not pinned:
        return {}, {}
    covered: dict[str, str] = {}
    met: dict[str, str] = {}
    for rv in verdicts:
        evidence = rv.evidence
        if (rv.verdict not in DEPARTURES or is_advisory(rv) or evidence is None or not evidence.reproduced
                or not evidence.original or not evidence.target):
            continue
        roots = pinned.get(pair_difference(evidence.original, evidence.target, evidence.differences), [])
        # A pair that is not its record's failure (another change shows first on its example) confirmed
        # nothing of that failure on a fresh process, and what it shows is the entry's: covered, as its own
        # pair would be (fork-model-guard, relay seed 11: RTE-5 refused by the lockout on the shared process,
        # its example `isRevision: {}` refused on a fresh one as RTE-3's entry pins). It re-observes nothing.
        if _own_pair(evidence):
            for root in roots:
                met.setdefault(root, rv.id)
        if roots and rv.id not in entries and rv.id not in settled:
            covered[rv.id] = canonical.get(roots[0], roots[0])
    by_id = {rv.id: rv for rv in verdicts}
    reobserved: dict[str, str] = {}
    for rid in entries:
        root = owners.get(rid, rid)
        seen = by_id.get(rid)
        if root in met and seen is not None and seen.verdict == "holds":
            reobserved[rid] = (f"its entry's pinned pair (the call that made {root} depart) differs from "
                               f"the original again in this run: {met[root]}'s check met it, this record's "
                               "did not")
    return covered, reobserved

