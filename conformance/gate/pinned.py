"""The baseline's pinned witnesses replayed on fresh processes: a gate verdict that does not hang on the seed.

The suite's search draws its examples from the seed: a departure it reaches under one seed it can miss under
another. A baseline entry pins its departure's witness answers (fixed calls, no generated values). Before the
gate calls an entry stale, its witnesses are sent again to a fresh process of the target and of the original:
an entry whose pinned answers come back, and differ from the original's, still departs whatever the search
drew. A departure the baseline does not list is new only when fresh processes confirm it (its own witness,
its own example or the fixed opening calls answer otherwise than the original's), and only when what they
show is not what the entries' pinned witnesses differ about (`difference_keys`, core/differences.py: OBJ-1/a1
failing on the sorted `branches` an OBJ-4/a1 entry pins is that entry's). One nothing shows again on fresh
processes was seen once: reported, not failing (`settle_unlisted`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from conformance.catalog.witnesses import default_witnesses
from conformance.core.differences import difference_keys
from conformance.core.differences import refusal as refusal_of
from conformance.core.drawn_answer import drawn
from conformance.core.errors import HarnessError
from conformance.core.failure_text import readable
from conformance.core.served import read_served
from conformance.core.witness_words import NEVER_DEPARTED
from conformance.drivers.errors import START_UNANSWERED
from conformance.gate.baseline import DEPARTURES, Baseline, BaselineEntry, canonical_entries, folded_owners
from conformance.gate.carried import pinned_alike
from conformance.gate.idle_watch import IDLE_STEP, IDLE_WITNESS
from conformance.gate.signatures import ARTIFACT_UNAVAILABLE, Exhaustion, RecordSignature, sign_departures
from conformance.gate.verdicts import is_advisory
from conformance.report.model import LIMIT_REFUSED_WORDS, UNASKED, Evidence, RecordVerdict, WitnessAnswer

Signer = Callable[[list[str]], Mapping[str, RecordSignature]]


@dataclass(frozen=True)
class PinnedReplay:
    """What the replay of the pinned witnesses found, for `evaluate_gate`."""

    reobserved: dict[str, str] = field(default_factory=dict)
    """A listed record the search saw hold, mapped to why it still departs (its pinned witness, or its
    entry's, re-observed on a fresh process)."""
    own: dict[str, frozenset[str]] = field(default_factory=dict)
    """An unlisted departure mapped to what its own witness, on fresh processes of the target and of the
    original, differs about (empty: its witness shows no difference, or it has none); absent when that could
    not be told (a side unsigned)."""
    pinned: dict[str, frozenset[str]] = field(default_factory=dict)
    """Each entry re-observed in this run (by the search or by its pinned witness) mapped to what its pinned
    witnesses, its own and its folded departures', differ about from the original's."""
    members: dict[str, tuple[str, BaselineEntry]] = field(default_factory=dict)
    """Each listed record of a re-observed entry mapped to that entry's record and its own listing: what it
    departed about in this run's evidence (read after these replays, `departed_as_pinned`) is the entry's."""


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
    entries = canonical_entries(baseline, canonical) if baseline is not None else {}
    owners = folded_owners(baseline, canonical) if baseline is not None else {}
    by_id = {rv.id: rv for rv in verdicts}
    holding = [rid for rid, entry in entries.items()
               if rid in by_id and by_id[rid].verdict == "holds" and entry.verdict == "deviates"]
    unlisted = [rv.id for rv in verdicts
                if rv.verdict in DEPARTURES and rv.id not in entries and not is_advisory(rv)]
    if not holding and not unlisted:
        return PinnedReplay()
    roots = {owners.get(rid, rid) for rid in holding} | (set(entries) - set(owners) if unlisted else set())
    members = {rid for rid in entries if owners.get(rid, rid) in roots}
    fresh_wanted = [rid for rid in dict.fromkeys([*holding, *sorted(roots)])
                    if rid in by_id and by_id[rid].verdict not in DEPARTURES]
    fresh = {rid: (s.signature, s.witness) for rid, s in sign(fresh_wanted).items()}
    fresh |= {rid: (rv.signature, rv.witness) for rid, rv in by_id.items()
              if rv.verdict in DEPARTURES and rv.signature}
    signed_original = sign_original(sorted({*holding, *roots, *members, *unlisted}))
    original = {rid: s.signature for rid, s in signed_original.items()}

    def fresh_as_pinned(rid: str) -> bool:
        entry = entries[rid]
        signature, witness = fresh.get(rid, (None, []))
        return (entry.signature is not None and signature is not None
                and pinned_alike(entry.signature, entry.witness, signature, witness))

    def departs_as_pinned(rid: str) -> bool:
        pinned = entries[rid].signature
        return (pinned is not None and fresh_as_pinned(rid) and rid in original
                and original[rid] != pinned)

    def present(root: str) -> bool:
        entry: BaselineEntry = entries[root]
        rv = by_id.get(root)
        seen = (rv is not None and rv.verdict == entry.verdict
                and pinned_alike(entry.signature, entry.witness, rv.signature, rv.witness))
        return seen or departs_as_pinned(root)

    reobserved: dict[str, str] = {}
    # An entry whose pinned witness answers as the original's on fresh processes (the search alone found it:
    # an object label left in the history by an example other seeds do not draw) cannot be told gone by its
    # witness; it is kept while another entry departs as pinned in this run's search (typescript-port,
    # held-out-multi-4: OBJ-4, OBJ-14 stale under dev 22, 33 and ci 11). The unmodified original departs
    # on no entry, so every entry of its baseline is still stale.
    anchored = any(rid not in holding and rid in by_id and by_id[rid].verdict == entry.verdict
                   and pinned_alike(entry.signature, entry.witness, by_id[rid].signature, by_id[rid].witness)
                   for rid, entry in entries.items())
    for rid in holding:
        root = owners.get(rid, rid)
        if departs_as_pinned(rid):
            reobserved[rid] = ("its pinned witness still departs from the original on a fresh process; this "
                               "run's search did not reach it")
        elif (anchored and entries[rid].signature is not None
              and fresh_as_pinned(rid) and entries[rid].signature == original.get(rid)):
            reobserved[rid] = NEVER_DEPARTED
        elif (root != rid and original.get(rid) == entries[rid].signature and root in entries
              and present(root)):
            reobserved[rid] = (f"folded under {root}, whose pinned departure is re-observed; its own witness "
                               "never differed from the original, and this run's search did not reach it")
    witnessed = set(default_witnesses().records)
    own: dict[str, frozenset[str]] = {}
    for rid in unlisted:
        rv = by_id[rid]
        if rid not in witnessed:
            own[rid] = frozenset()
        elif rv.signature is not None and rid in signed_original:
            own[rid] = witness_keys(signed_original[rid].witness, rv.witness)
    pinned: dict[str, frozenset[str]] = {}
    listed: dict[str, tuple[str, BaselineEntry]] = {}
    for root in sorted(roots):
        if root not in entries or not present(root):
            continue
        keys: set[str] = set()
        for rid in sorted(members):
            if owners.get(rid, rid) != root:
                continue
            listed[rid] = (root, entries[rid])
            if entries[rid].witness and rid in signed_original:
                keys |= witness_keys(signed_original[rid].witness, entries[rid].witness)
        pinned[root] = frozenset(keys)
    return PinnedReplay(reobserved, own, pinned, listed)




def departed_as_pinned(rv: RecordVerdict | None, entry: BaselineEntry) -> frozenset[str]:
    """What an entry's record, departing in this run as pinned (its verdict, its signature), differs about on
    fresh processes (its reproduced pair, or what the opening calls showed): that entry's difference too. A
    store capped at 20 labels pins no label difference in a witness of two labels, yet its OBJ-3 departs on
    the opening calls' 52 labels, and ABS-12 failing on those labels is OBJ-3's (long-running, issue 43)."""
    if rv is None or rv.evidence is None or rv.verdict != entry.verdict:
        return frozenset()
    if not pinned_alike(entry.signature, entry.witness, rv.signature, rv.witness):
        return frozenset()
    evidence = rv.evidence
    if evidence.reproduced:
        named = _named_in(evidence.differences)
        keys = evidence_keys(evidence.original, evidence.target, evidence.differences)
        return frozenset(key for key in keys if key in named or key in ("stderr", "own requests"))
    return frozenset(evidence.elsewhere)


def _named_in(differences: Sequence[str]) -> frozenset[str]:
    """The field names a record's own differences speak of (`result.serverInfo.version: …` names
    serverInfo and version): its pair's two answers may differ in other fields too, another change's
    (npm:2026.8.31's initialize adds `listChanged` beside CMP-3/a1's version), which its entry must not
    cover."""
    return frozenset(name for difference in differences
                     for name in re.findall(r"[A-Za-z_][\w/-]*", difference.split(":", 1)[0]))


def _own_keys(rv: RecordVerdict | None, entry: BaselineEntry) -> frozenset[str]:
    """`departed_as_pinned` without what the opening calls show beside a pair that did not reproduce: those
    are every change of the fork, so they cover only a departure that has no difference of its own either."""
    if rv is None or rv.evidence is None or not rv.evidence.reproduced:
        return frozenset()
    return departed_as_pinned(rv, entry)


def witness_keys(original: Sequence[WitnessAnswer], target: Sequence[WitnessAnswer]) -> frozenset[str]:
    """What one record's witness answers differ about, step by step (`difference_keys`); a step whose answer
    was cut for the report, or the witness steps themselves changed, is keyed by its name. An artifact step
    one side could not observe (a `cmd:` fork has no installed README or files) differs about nothing: it
    made every fork's CMP-2/a2 'confirmed' against npm:0.6.2's README (safe-terminal under ci 11)."""
    if [w.step for w in original] != [w.step for w in target]:
        return frozenset({"witness steps"})
    keys: set[str] = set()
    for a, b in zip(original, target, strict=True):
        if a.answer == b.answer or _unobserved(a) or _unobserved(b):
            continue
        try:
            found = difference_keys(read_served(a.answer, a.step), read_served(b.answer, b.step))
        except ValueError:
            found = frozenset()
        keys |= {f"step {a.step}" if k == "answer" else k for k in found} or {f"step {a.step}"}
    return frozenset(keys)


def _unobserved(answer: WitnessAnswer) -> bool:
    try:
        return bool(json.loads(answer.answer) == ARTIFACT_UNAVAILABLE)
    except ValueError:
        return False


NOT_CONFIRMED: Final = "seen once, not confirmed on a fresh process"
LIMIT_REFUSED: Final = LIMIT_REFUSED_WORDS
"""Why a departure whose every failure is the refusal a fresh process gives once its state ran out (or its
limit was reached) does not gate: the bound's departure, under its own heading, not as unconfirmed."""
BOUND_RECORD: Final = "RTE-5"
"""The record a session bound contradicts ("every call that passes validation is appended ... no size
bound"): a fresh process refusing the probe after accepting it (`exhaustion_refusal`) confirms its departure
on a fresh process, so it is never seen once while the target runs out (fork-bounded-session)."""


def settle_unlisted(verdicts: Sequence[RecordVerdict], replay: PinnedReplay,
                    canonical: Mapping[str, str], *, exhausted: Callable[[], Exhaustion | None] | None = None,
                    ) -> tuple[dict[str, str], dict[str, str]]:
    """The unlisted departures the baseline covers (mapped to the entry) and those seen once (mapped to why),
    from `replay` and each record's evidence (gate/evidence.py, replayed before).

    Seen once: its own witness on fresh processes of the target and the original answers alike, and so do
    its own example and the fixed opening calls replayed on fresh processes: nothing the search saw shows
    again. A replay not made (the budget, a side that would not start, a check with no call to replay) is no
    such proof: the departure stays new. Covered: everything it differs about on fresh processes (its
    witness, its reproduced pair, or else what the opening calls showed) is what the re-observed entries'
    pinned witnesses differ about, or what an entry's own record departed about in this run as pinned (its
    evidence, `departed_as_pinned`); it is put under the entry sharing most of it.

    Also seen once: a departure whose every failure is the refusal the target gives once a process's state ran
    out (`exhausted`, asked at most once: a fresh process refusing the probe after accepting it; a session
    bounded at 100 thoughts), when its own witness answers as the original's on fresh processes and no replay
    of its own example reproduced it. Which check a shared process happens to exhaust its session on differs
    from seed to seed (fork-bounded-session: OBJ-4/a2 under dev seed 1, written into the baseline and stale
    under the next seed; OBJ-13, ABS-2 new under ci 11, past the replay budget); that refusal is its own
    record's departure (the store's bound, `BOUND_RECORD`, which it confirms on a fresh process), not
    theirs. Likewise a departure whose every failure is what a process did while left idle (`_left_idle_only`)
    while fresh processes held idle answered its own witness, the idle step among it, as the original's: a
    timer slower than the idle witness's hold, met by the search's longer waits on some runs only. And a
    departure whose every failure is a process not answering initialize in time
    (`_unanswered_at_start`) while fresh processes answered its own witness as the original's: a slow start on
    a loaded machine, not the server's behaviour; a server that never answers fails its witness too."""
    covered: dict[str, str] = {}
    seen_once: dict[str, str] = {}
    by_id = {rv.id: rv for rv in verdicts}
    grown = {root: set(keys) for root, keys in replay.pinned.items()}
    strict = {root: set(keys) for root, keys in replay.pinned.items()}
    for rid, (root, entry) in replay.members.items():
        grown[root] |= departed_as_pinned(by_id.get(rid), entry)
        strict[root] |= _own_keys(by_id.get(rid), entry)
    asked: list[Exhaustion | None] = []

    def exhaustion() -> Exhaustion | None:
        if exhausted is None:
            return None
        if not asked:
            asked.append(exhausted())
        return asked[0]

    loose = _with_union({root: frozenset(keys) for root, keys in grown.items()})
    strict_ = _with_union({root: frozenset(keys) for root, keys in strict.items()})
    for rv in verdicts:
        if rv.id not in replay.own:
            continue
        evidence = rv.evidence
        witness = replay.own[rv.id]
        # The bound itself shows on a fresh process: RTE-5's departure is confirmed, whatever its checks'
        # own examples (sent to a process the suite had already exhausted) show when replayed.
        bounded = rv.id == BOUND_RECORD and exhaustion() is not None
        if not witness and rv.witness and not bounded and not (evidence is not None and evidence.reproduced) \
                and _unanswered_at_start(rv):
            seen_once[rv.id] = (f"{NOT_CONFIRMED}: every failure of its checks is a process that did not "
                                "answer initialize in time, and fresh processes answered its own witness as "
                                f"the original's: the machine's pace, not the server's ({rv.reason})")
            continue
        if not witness and not bounded and _left_idle_only(rv):
            longest = max(t.left_idle or 0.0 for t in rv.tests)
            seen_once[rv.id] = (
                f"{NOT_CONFIRMED}: every failure of its checks is what a process did while left idle (after "
                f"{longest:g} s), and fresh processes of the target and the original, each held idle "
                f"{IDLE_WITNESS:g} s at most after one call, answered its own witness alike: a timer the "
                f"search's waits happened to meet, not one the gate sees on every run ({rv.reason})")
            continue
        if not witness and evidence is not None and evidence.no_difference and not bounded:
            seen_once[rv.id] = (f"{NOT_CONFIRMED}: its own witness, its example and the fixed opening calls "
                                "answer alike on fresh processes of the target and the original "
                                f"({rv.reason})")
            continue
        if not witness and rv.witness and not bounded and not (evidence is not None and evidence.reproduced):
            found = exhaustion()
            if found is not None and refused_by_exhaustion(rv, found.refusal):
                seen_once[rv.id] = (
                    f"{LIMIT_REFUSED}: every failure of its checks is the refusal a process gives once its "
                    f"state ran out (a fresh process accepted {found.accepted} calls, then answered "
                    f"{_brief(found.refusal)}), and its own witness answers as the original's on fresh "
                    f"processes ({rv.reason})")
                continue
        if (not witness and not bounded and evidence is not None and evidence.reproduced
                and _refused_in_pair(evidence) is not None):
            # Its example, replayed on a fresh process, ran into the limit again (25 thoughts in ten seconds
            # come as fast on a fresh process as on the shared one): the pair shows the bound, not its record.
            found = exhaustion()
            if (found is not None and _refused_in_pair(evidence, found.refusal) is not None
                    and refused_by_exhaustion(rv, found.refusal)):
                bound = replay.members.get(BOUND_RECORD)
                if bound is not None:
                    covered[rv.id] = canonical.get(bound[0], bound[0])
                else:
                    seen_once[rv.id] = (
                        f"{LIMIT_REFUSED}: its example, replayed on a fresh process, was refused in the "
                        f"limit's own words ({_brief(found.refusal)}; a fresh process accepted "
                        f"{found.accepted} calls first), as every failure of its checks was: the bound's "
                        f"departure ({BOUND_RECORD}'s), not this record's ({rv.reason})")
                continue
        keys = set(witness)
        if evidence is not None and evidence.reproduced:
            keys |= evidence_keys(evidence.original, evidence.target, evidence.differences)
        # A departure with a difference of its own (its witness, its reproduced pair) is covered only by what
        # entries pin or reproduce; the opening calls' differences beside an entry's unreproduced pair are
        # the whole fork's (CMP-3/a1's entry must not cover a new CMP-3 on npm:2026.8.31).
        by_root, pinned = strict_ if keys else loose
        if evidence is not None and not evidence.reproduced:
            keys |= set(evidence.elsewhere)
        if keys and keys <= pinned:
            root = max(sorted(by_root), key=lambda r: len(keys & by_root[r]))
            covered[rv.id] = canonical.get(root, root)
    return covered, seen_once


def _left_idle_only(rv: RecordVerdict) -> bool:
    """Every failing check of the record failed on what a process did while left idle (`TestRef.left_idle`),
    and its witness holds the idle step (`IdleWatch`), the one judge of such a failure: the search's idle
    waits differ from run to run (a pooled process idles seconds under dev, longer under ci or load)."""
    failing = [t for t in rv.tests if t.status in ("failed", "error")]
    return (bool(failing) and all(t.left_idle is not None for t in failing)
            and any(w.step == IDLE_STEP for w in rv.witness))


def _unanswered_at_start(rv: RecordVerdict) -> bool:
    """Every failing check of the record failed only for want of an answer to `initialize` in time
    (`START_UNANSWERED`): under load a check's process started too slowly (fork-multilingual's CMP-4 and
    LOOP-A under ci 22, load 20: new, where the baseline's run and every other cell saw them hold)."""
    failing = [t for t in rv.tests if t.status in ("failed", "error")]
    return bool(failing) and all(START_UNANSWERED.match(readable(t.message).strip()) for t in failing)


def _refused_in_pair(evidence: Evidence, refusal: str | None = None) -> str | None:
    """The target's refusal words where its reproduced pair differs, when the original accepted that call;
    with `refusal` (the limit's), only when those words are all the limit's own: a pair showing another
    refusal is another change's."""
    try:
        theirs = refusal_of(read_served(evidence.original, "answer"))
        ours = refusal_of(read_served(evidence.target, "answer"))
    except ValueError:
        return None
    if ours is None or theirs is not None:
        return None
    if refusal is None:
        return ours.words
    words = _refusal_words(refusal)
    said = ours.words.strip()
    return said if words and (said in words or said == refusal.strip()) else None


def _with_union(by_root: dict[str, frozenset[str]]) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """Keys by entry root, with everything they hold together: asked once per run, not per departure."""
    return by_root, frozenset().union(*by_root.values())


def refused_by_exhaustion(rv: RecordVerdict, refusal: str) -> bool:
    """Every failed (or erroring) test of the record says it got `refusal`: its words (the refusal's text, or
    each string of it when it is JSON, such as "Thought limit reached (100)") appear in each failure message,
    as written, JSON-escaped or as Python shows them; or the check found no status where it read one ("no
    key 'thoughtHistoryLength' where the check read one": the refusal carries none, while the record's own
    witness, answered by a fresh process as the original's, has it)."""
    words = _refusal_words(refusal)
    messages = [t.message or "" for t in rv.tests if t.status in ("failed", "error")]
    if not words or not messages:
        return False

    def says(message: str) -> bool:
        return bool(_NO_STATUS.search(message)) or any(
            form in message for word in words
            for form in (word, json.dumps(word, ensure_ascii=False)[1:-1], json.dumps(word)[1:-1],
                         repr(word)[1:-1]))

    return all(says(message) for message in messages)


_NO_STATUS: Final = re.compile(r"\bno key '(?:thoughtNumber|totalThoughts|nextThoughtNeeded|branches|"
                               r"thoughtHistoryLength)' where the check read one")
"""A check that read a status field from an answer that had none (core/failure_text.py's words for it)."""
_WORDS_LEAST: Final = 8
"""The shortest string of a refusal taken as its words: "failed" or "error" alone tell no refusal apart."""


def _refusal_words(refusal: str) -> list[str]:
    try:
        parsed = json.loads(refusal)
    except ValueError:
        parsed = refusal
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            if len(value.strip()) >= _WORDS_LEAST:
                found.append(value.strip())
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(parsed)
    return found


def _brief(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return json.dumps(flat if len(flat) <= limit else flat[:limit] + "…", ensure_ascii=False)


def evidence_keys(original: str, target: str, differences: Sequence[str]) -> frozenset[str]:
    """What a reproduced pair differs about: its two answers' `difference_keys`, and its stderr or the
    requests a side sent of its own when those differ; a box that only redraws the answer's changed values
    (`drawn`) is the answer's difference, not the stderr's."""
    keys: set[str] = set()
    try:
        keys |= difference_keys(read_served(original, "answer"), read_served(target, "answer"))
    except ValueError:
        keys.add("answer")
    keys |= {"stderr" for d in differences if d.startswith("stderr:") and not drawn(d)}
    keys |= {"own requests" for d in differences if d.startswith(UNASKED)}
    return frozenset(keys)


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
    # The original keeps nothing across processes: its witnesses need not see whether a second one starts
    # from the first one's store (a process fewer per red run). Nor anything from a refused call (it validates
    # before it stores): a record refused after others is not signed again alone (every witness record signs
    # alike on npm:0.6.2 and the reference either way, on 1 process instead of 23: docs/performance.md).
    return sign_departures(original, records, timeout, transcript_path, stateless=True, refusals_carry=False,
                           clockless=True)
