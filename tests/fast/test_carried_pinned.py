"""A store read as carried in one run and not in another is no change (gate/carried.py), through the API.

fork-remembered-labels (held-out-multi-13) keeps its labels in a file beside its script. Its baseline run
(dev, seed 1) read the store as carried (its two first witness processes answered with different labels:
another process had rewritten the file between their starts); the gate under ci seed 22 did not, and all 35
entries went "changed" on the same build. The answers below are that run's OBJ-2 witness, shortened.
"""

from __future__ import annotations

import hashlib
import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.records import default_catalog
from conformance.core.jsontypes import JSON
from conformance.core.witness_words import CARRIED
from conformance.gate.baseline import Baseline, BaselineEntry, evaluate_gate
from conformance.gate.carried import carried_alike, pinned_alike
from conformance.gate.pinned import replay_pinned
from conformance.gate.signatures import RecordSignature
from conformance.report.model import RecordVerdict, WitnessAnswer

CANONICAL = {r.id: r.id for r in default_catalog().records}


def _answer(number: int, branches: JSON, count: JSON) -> str:
    return json.dumps({"result": {"isError": False, "content": [{"type": "text", "json": {
        "thoughtNumber": number, "totalThoughts": 3, "nextThoughtNeeded": number < 3, "branches": branches,
        "thoughtHistoryLength": count}, "layout": "indent 2"}]}}, separators=(",", ":"))


def _witness(carried: bool, *, total: int = 3) -> list[WitnessAnswer]:
    return [WitnessAnswer(step=step, answer=_answer(n, CARRIED if carried else [],
                                                    CARRIED if carried else f"+{n - 1}").replace(
        '"totalThoughts":3', f'"totalThoughts":{total}'))
            for n, step in ((1, "plain"), (2, "second"), (3, "last"))]


def _sig(witness: list[WitnessAnswer]) -> str:
    return hashlib.sha256(json.dumps([[w.step, w.answer] for w in witness]).encode()).hexdigest()


def _rv(witness: list[WitnessAnswer], verdict: str = "deviates") -> RecordVerdict:
    return RecordVerdict(id="OBJ-2", kind="obj", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict=verdict, evidence_before="implemented", evidence_after="observed",  # type: ignore[arg-type]
                         signature=_sig(witness) if verdict == "deviates" else None,
                         witness=witness if verdict == "deviates" else [], reason="r")


def _baseline(witness: list[WitnessAnswer]) -> Baseline:
    return Baseline(project="p", deviations=[BaselineEntry(
        record="OBJ-2", reason="intended", signature=_sig(witness), witness=witness)])


def test_a_store_carried_in_the_baseline_run_only_is_no_change() -> None:
    gate = evaluate_gate([_rv(_witness(carried=False))], _baseline(_witness(carried=True)),
                         baseline_path="b", canonical=CANONICAL)
    assert gate.passed and not gate.changed, gate.changed
    assert [e.record for e in gate.expected] == ["OBJ-2"]


def test_a_store_carried_in_the_gate_run_only_is_no_change() -> None:
    gate = evaluate_gate([_rv(_witness(carried=True))], _baseline(_witness(carried=False)),
                         baseline_path="b", canonical=CANONICAL)
    assert gate.passed and not gate.changed, gate.changed


def test_what_was_not_carried_still_has_to_match() -> None:
    """A total the fork now answers otherwise is a change, carried store or not."""
    gate = evaluate_gate([_rv(_witness(carried=False, total=4))], _baseline(_witness(carried=True)),
                         baseline_path="b", canonical=CANONICAL)
    assert not gate.passed and [e.record for e in gate.changed] == ["OBJ-2"]


def test_a_pinned_witness_replayed_without_the_carried_reading_still_departs_as_pinned() -> None:
    """The search missed the entry; its pinned witness, replayed on a fresh process of a run that did not read
    the store as carried, is still the pinned departure (not stale)."""
    pinned = _witness(carried=True, total=4)
    replayed = _witness(carried=False, total=4)

    def sign(records: list[str]) -> dict[str, RecordSignature]:
        return {r: RecordSignature(r, _sig(replayed), replayed) for r in records}

    def sign_original(records: list[str]) -> dict[str, RecordSignature]:
        return {r: RecordSignature(r, _sig(_witness(False)), _witness(False)) for r in records}

    replay = replay_pinned([_rv([], "holds")], _baseline(pinned), CANONICAL, sign=sign,
                           sign_original=sign_original)
    assert "OBJ-2" in replay.reobserved, replay


_LEAF = st.one_of(st.integers(-5, 5), st.text(max_size=4), st.booleans(),
                  st.lists(st.text(max_size=3), max_size=3))
_STATUS = st.dictionaries(st.text(min_size=1, max_size=6), _LEAF, min_size=1, max_size=6)


@given(_STATUS, st.data())
def test_fields_one_side_carried_are_alike_and_any_other_difference_is_not(status: dict[str, JSON],
                                                                           data: st.DataObject) -> None:
    keys = sorted(status)
    carried = data.draw(st.sets(st.sampled_from(keys), min_size=1))
    side = data.draw(st.booleans())
    masked = {k: CARRIED if k in carried else v for k, v in status.items()}
    one = [WitnessAnswer(step="s", answer=json.dumps({"json": status}))]
    other = [WitnessAnswer(step="s", answer=json.dumps({"json": masked}))]
    before, after = (one, other) if side else (other, one)
    assert carried_alike(before, after)
    assert pinned_alike("a" * 64, before, "b" * 64, after)
    rest = [k for k in keys if k not in carried]
    if rest:
        changed = dict(masked, **{rest[0]: ["a value no leaf draws", 0]})
        assert not carried_alike(one, [WitnessAnswer(step="s", answer=json.dumps({"json": changed}))])


def test_nothing_carried_compares_by_signature_alone() -> None:
    plain = _witness(carried=False)
    assert not carried_alike(plain, _witness(carried=False, total=4))
    assert not pinned_alike("a" * 64, plain, "b" * 64, plain)
    assert pinned_alike(None, plain, None, [])
    assert not pinned_alike("a" * 64, _witness(True), None, [])
