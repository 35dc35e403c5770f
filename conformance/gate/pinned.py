"""The baseline's pinned witnesses replayed on fresh processes: a gate verdict that does not hang on the seed.

The suite's search draws its examples from the seed: a departure it reaches under one seed it can miss under
another. A baseline entry pins its departure's witness answers (fixed calls, no generated values). Before the
gate calls an entry stale, its witnesses are sent again to a fresh process of the target and of the original:
an entry whose pinned answers come back, and differ from the original's, still departs whatever the search
drew. A departure the baseline does not list is covered by an entry only when it is that entry's difference:
the run's root causes put it under the entry's record, and its own witnesses show no difference from the
original of their own (OBJ-1/a1 failing on the sorted `branches` an OBJ-4/a1 entry pins).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conformance.core.errors import HarnessError
from conformance.gate.baseline import DEPARTURES, Baseline, BaselineEntry, canonical_entries, folded_owners
from conformance.gate.signatures import RecordSignature, sign_departures
from conformance.report.model import RecordVerdict

Signer = Callable[[list[str]], Mapping[str, RecordSignature]]


@dataclass(frozen=True)
class PinnedReplay:
    """What the replay of the pinned witnesses found, for `evaluate_gate`."""

    reobserved: dict[str, str] = field(default_factory=dict)
    """A listed record the search saw hold, mapped to why it still departs (its pinned witness, or its
    entry's, re-observed on a fresh process)."""
    covered: dict[str, str] = field(default_factory=dict)
    """An unlisted departure mapped to the entry whose pinned difference it is."""


def replay_pinned(
    verdicts: Sequence[RecordVerdict],
    baseline: Baseline | None,
    canonical: Mapping[str, str],
    *,
    sign: Signer,
    sign_original: Signer,
) -> PinnedReplay:
    """Replay the witnesses of the entries the search saw hold, of their entries' records, and of the unlisted
    departures, on one fresh process of the target (`sign`) and one of the original (`sign_original`)."""
    if baseline is None:
        return PinnedReplay()
    entries = canonical_entries(baseline, canonical)
    owners = folded_owners(baseline, canonical)
    by_id = {rv.id: rv for rv in verdicts}
    holding = [rid for rid, entry in entries.items()
               if rid in by_id and by_id[rid].verdict == "holds" and entry.verdict == "deviates"]
    unlisted = [rv.id for rv in verdicts if rv.verdict in DEPARTURES and rv.id not in entries]
    causes = {rid: canonical.get(by_id[rid].explained_by or "", "") for rid in unlisted}
    roots = {owners.get(rid, rid) for rid in holding}
    roots |= {owners.get(cause, cause) for cause in causes.values() if cause in entries}
    if not holding and not any(cause in entries for cause in causes.values()):
        return PinnedReplay()
    fresh_wanted = [rid for rid in dict.fromkeys([*holding, *sorted(roots)])
                    if rid in by_id and by_id[rid].verdict not in DEPARTURES]
    fresh = {rid: s.signature for rid, s in sign(fresh_wanted).items()}
    fresh |= {rid: rv.signature for rid, rv in by_id.items() if rv.verdict in DEPARTURES and rv.signature}
    original = {rid: s.signature for rid, s in sign_original(sorted({*holding, *roots, *unlisted})).items()}

    def departs_as_pinned(rid: str) -> bool:
        pinned = entries[rid].signature
        return (pinned is not None and fresh.get(rid) == pinned and rid in original
                and original[rid] != pinned)

    def present(root: str) -> bool:
        entry: BaselineEntry = entries[root]
        rv = by_id.get(root)
        seen = (rv is not None and rv.verdict == entry.verdict
                and (entry.signature is None or rv.signature == entry.signature))
        return seen or departs_as_pinned(root)

    reobserved: dict[str, str] = {}
    for rid in holding:
        root = owners.get(rid, rid)
        if departs_as_pinned(rid):
            reobserved[rid] = ("its pinned witness still departs from the original on a fresh process; this "
                               "run's search did not reach it")
        elif (root != rid and original.get(rid) == entries[rid].signature and root in entries
              and present(root)):
            reobserved[rid] = (f"folded under {root}, whose pinned departure is re-observed; its own witness "
                               "never differed from the original, and this run's search did not reach it")
    covered: dict[str, str] = {}
    for rid, cause in causes.items():
        if cause not in entries:
            continue
        root = owners.get(cause, cause)
        own = fresh.get(rid)
        if present(root) and own is not None and original.get(rid) == own:
            covered[rid] = root
    return PinnedReplay(reobserved, covered)


def original_signatures(records: list[str], *, cache_dir: Path | None, timeout: float,
                        transcript_path: Path) -> dict[str, RecordSignature]:
    """The records' signatures on a fresh process of the original (npm:0.6.2 when the target cache holds it,
    else the reference, whose witness answers are the same); none when it cannot be started."""
    from conformance.gate.evidence import original_target
    from conformance.targets.specs import default_cache_dir

    if not records:
        return {}
    try:
        original = original_target(cache_dir if cache_dir is not None else default_cache_dir())
    except HarnessError:
        return {}
    return sign_departures(original, records, timeout, transcript_path)
