"""The baseline's pinned witnesses weighed before stale and new (gate/pinned.py), through the API.

The signers stand for the witness processes of the target and the original (what `sign_departures` returns
for them); the whole path on real forks is tests/e2e/test_pinned_replay.py.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from conformance.catalog.records import default_catalog
from conformance.gate.baseline import Baseline, BaselineEntry, ExplainedEntry, evaluate_gate
from conformance.gate.pinned import PinnedReplay, Signer, replay_pinned, settle_unlisted, witness_keys
from conformance.gate.signatures import RecordSignature
from conformance.report.model import Evidence, Gate, RecordVerdict, Verdict, WitnessAnswer

CANONICAL = {r.id: r.id for r in default_catalog().records}


def _status(branches: list[str], count: int = 3) -> str:
    """An accepted answer's canonical witness form (gate/canonical.py)."""
    return json.dumps({"result": {"isError": False, "content": [{"json": {
        "thoughtNumber": 2, "totalThoughts": 3, "nextThoughtNeeded": True, "branches": branches,
        "thoughtHistoryLength": count}, "layout": "indent 2", "type": "text"}]}})


def _response(branches: list[str], count: int = 3) -> str:
    """An accepted answer as the evidence keeps it (a JSON-RPC response, compact)."""
    text = json.dumps({"thoughtNumber": 2, "totalThoughts": 3, "nextThoughtNeeded": True,
                       "branches": branches, "thoughtHistoryLength": count}, indent=2)
    return json.dumps({"jsonrpc": "2.0", "result": {"content": [{"type": "text", "text": text}]}})


Witness = list[WitnessAnswer]
SORTED: Witness = [WitnessAnswer(step="branch-beta", answer=_status(["alpha", "zeta"]))]
KEY_ORDER: Witness = [WitnessAnswer(step="branch-beta", answer=_status(["zeta", "alpha"]))]
"""OBJ-4/a1's witness on the sorted-branches fork and on the original."""
PLAIN: Witness = [WitnessAnswer(step="plain", answer=_status([]))]
"""A witness that shows nothing of the labels (the same on both)."""
COUNTED: Witness = [WitnessAnswer(step="plain", answer=_status([], 4))]
"""The same witness on a fork that counts a thought twice."""


def _sig(witness: Witness) -> str:
    """The signature stands for the witness answers (gate/signatures.py hashes them alike)."""
    return hashlib.sha256(json.dumps([[w.step, w.answer] for w in witness]).encode()).hexdigest()


def _rv(record: str, verdict: Verdict, witness: Witness | None = None, explained_by: str | None = None,
        evidence: Evidence | None = None) -> RecordVerdict:
    return RecordVerdict(id=record, kind="obj", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict=verdict, evidence_before="implemented", evidence_after="observed",
                         signature=_sig(witness) if witness else None, witness=witness or [],
                         explained_by=explained_by, evidence=evidence, reason="r")


def _signer(witnesses: Mapping[str, Witness]) -> tuple[list[list[str]], Signer]:
    asked: list[list[str]] = []

    def sign(records: list[str]) -> dict[str, RecordSignature]:
        asked.append(records)
        return {r: RecordSignature(r, _sig(witnesses[r]), witnesses[r]) for r in records if r in witnesses}

    return asked, sign


BASELINE = Baseline(project="p", deviations=[BaselineEntry(
    record="OBJ-4/a1", reason="we sort the labels", signature=_sig(SORTED), witness=SORTED,
    explains=[ExplainedEntry(record="ABS-11", signature=_sig(PLAIN), witness=PLAIN)])])
"""The sorted-branches fork's: OBJ-4/a1 pinned with its departing witness, ABS-11 folded under it (its own
witness is the original's: it departed only through OBJ-4/a1's labels)."""
THE_ORIGINAL = {"OBJ-4/a1": KEY_ORDER, "ABS-11": PLAIN, "RTE-4": PLAIN, "RTE-5": PLAIN}


def _replay(verdicts: list[RecordVerdict], fork: Mapping[str, Witness], original: Mapping[str, Witness],
            baseline: Baseline | None = BASELINE) -> PinnedReplay:
    _, sign = _signer(fork)
    _, sign_original = _signer(original)
    return replay_pinned(verdicts, baseline, CANONICAL, sign=sign, sign_original=sign_original)


def _gate(verdicts: list[RecordVerdict], baseline: Baseline | None = BASELINE,
          original: Mapping[str, Witness] = THE_ORIGINAL) -> Gate:
    """As gate/assemble.py weighs them: the pinned witnesses replayed before the evidence is read (the
    verdicts without it), the unlisted departures settled after (with it)."""
    replay = _replay([rv.model_copy(update={"evidence": None}) for rv in verdicts], {}, original, baseline)
    covered, seen_once = settle_unlisted(verdicts, replay, CANONICAL)
    return evaluate_gate(verdicts, baseline, baseline_path="b" if baseline else None, canonical=CANONICAL,
                         reobserved=replay.reobserved, covered=covered, seen_once=seen_once)


def _pair(original: str, target: str) -> Evidence:
    """A reproduced pair: the example's first differing request on fresh processes of both sides."""
    return Evidence(reproduced=True, original_spec="npm:0.6.2", original=original, target=target,
                    differences=["branches[0]: the original's, this one's"])


NOT_AGAIN = Evidence(reproduced=False, original_spec="npm:0.6.2", no_difference=True,
                     why="no difference of this record's on fresh processes")
"""Its example and the opening calls replayed on fresh processes of both sides: no difference at all."""
LABELS_ELSEWHERE = Evidence(reproduced=False, original_spec="npm:0.6.2", elsewhere=["branches"],
                            why="no difference of this record's on fresh processes")
"""Its own example answers alike on fresh processes, but the opening calls show the labels sorted (issue 43:
OBJ-10, RTE-5, ABS-12 of the sorted-branches fork depart only on the shared process's labels)."""


def test_an_entry_the_search_missed_is_not_stale_while_its_pinned_witness_still_departs() -> None:
    verdicts = [_rv("OBJ-4/a1", "holds"), _rv("ABS-11", "holds")]
    replay = _replay(verdicts, {"OBJ-4/a1": SORTED, "ABS-11": PLAIN}, THE_ORIGINAL)
    assert set(replay.reobserved) == {"OBJ-4/a1", "ABS-11"}
    gate = evaluate_gate(verdicts, BASELINE, baseline_path="b", canonical=CANONICAL,
                         reobserved=replay.reobserved)
    assert gate.passed and not gate.stale
    assert {e.record for e in gate.expected if e.witnessed} == {"OBJ-4/a1", "ABS-11"}


def test_the_original_is_stale_under_the_forks_baseline() -> None:
    verdicts = [_rv("OBJ-4/a1", "holds"), _rv("ABS-11", "holds")]
    replay = _replay(verdicts, {"OBJ-4/a1": KEY_ORDER, "ABS-11": PLAIN}, THE_ORIGINAL)
    assert replay.reobserved == {}
    gate = evaluate_gate(verdicts, BASELINE, baseline_path="b", canonical=CANONICAL,
                         reobserved=replay.reobserved)
    assert not gate.passed and {e.record for e in gate.stale} == {"OBJ-4/a1", "ABS-11"}


def test_a_pinned_witness_equal_to_the_originals_vouches_for_nothing() -> None:
    """A witness that never showed the departure cannot say it is still there: the search's verdict stands."""
    verdicts = [_rv("OBJ-4/a1", "holds"), _rv("ABS-11", "holds")]
    replay = _replay(verdicts, {"OBJ-4/a1": SORTED, "ABS-11": PLAIN}, {"OBJ-4/a1": SORTED, "ABS-11": PLAIN})
    assert replay.reobserved == {}


ENTRY_SEEN = [_rv("OBJ-4/a1", "deviates", SORTED), _rv("ABS-11", "deviates", PLAIN, "OBJ-4/a1")]


def test_an_unlisted_departure_whose_difference_is_an_entrys_pinned_one_is_covered() -> None:
    """Issue 43: RTE-4 failing on the sorted `branches` the OBJ-4/a1 entry pins is that entry's, whatever
    the root causes grouped it under (none here); its own witness shows nothing, its replayed example the
    labels."""
    rte4 = _rv("RTE-4", "deviates", PLAIN, evidence=_pair(_response(["zeta", "alpha"]),
                                                         _response(["alpha", "zeta"])))
    gate = _gate([*ENTRY_SEEN, rte4])
    assert gate.passed and not gate.unexpected
    [row] = [e for e in gate.expected if e.record == "RTE-4"]
    assert row.folded_under == "OBJ-4/a1" and row.reason == "we sort the labels" and row.witnessed


def test_an_entry_departing_as_pinned_covers_what_its_own_departure_differs_about() -> None:
    """long-running (issue 43): its OBJ-3 entry's witness files two labels (the original's answers), yet
    OBJ-3 departs on the opening calls' 52 labels, past the fork's cap of 20; ABS-12 failing on those labels
    under another seed is OBJ-3's entry, not new. A difference neither shows (a box) is still new."""
    capped = Baseline(project="p", deviations=[BaselineEntry(
        record="OBJ-3", reason="we keep 20 labels", signature=_sig(PLAIN), witness=PLAIN)])
    obj3 = _rv("OBJ-3", "deviates", PLAIN, evidence=LABELS_ELSEWHERE)
    original = {"OBJ-3": PLAIN, "ABS-12": PLAIN}
    gate = _gate([obj3, _rv("ABS-12", "deviates", PLAIN, evidence=LABELS_ELSEWHERE)], capped, original)
    assert gate.passed and [e.folded_under for e in gate.expected if e.record == "ABS-12"] == ["OBJ-3"]
    boxed = LABELS_ELSEWHERE.model_copy(update={"elsewhere": ["branches", "stderr"]})
    gate = _gate([obj3, _rv("ABS-12", "deviates", PLAIN, evidence=boxed)], capped, original)
    assert not gate.passed and [e.record for e in gate.unexpected] == ["ABS-12"]
    moved = _rv("OBJ-3", "deviates", COUNTED, evidence=LABELS_ELSEWHERE)
    gate = _gate([moved, _rv("ABS-12", "deviates", PLAIN, evidence=LABELS_ELSEWHERE)], capped, original)
    assert [e.record for e in gate.unexpected] == ["ABS-12"], "an entry departing otherwise than pinned"


def test_an_entrys_unreproduced_departure_covers_no_difference_another_record_reproduces() -> None:
    """npm:2026.8.31 with CMP-3 left out of its baseline: CMP-3/a1's entry departs as pinned, its own pair
    not reproduced, and the opening calls show every change of the release beside it; CMP-3's own
    reproduced difference (here: the labels) is still new, not that entry's."""
    capped = Baseline(project="p", deviations=[BaselineEntry(
        record="OBJ-3", reason="we keep 20 labels", signature=_sig(PLAIN), witness=PLAIN)])
    obj3 = _rv("OBJ-3", "deviates", PLAIN, evidence=LABELS_ELSEWHERE)
    own = _rv("ABS-12", "deviates", PLAIN,
              evidence=_pair(_response(["zeta", "alpha"]), _response(["alpha", "zeta"])))
    gate = _gate([obj3, own], capped, {"OBJ-3": PLAIN, "ABS-12": PLAIN})
    assert not gate.passed and [e.record for e in gate.unexpected] == ["ABS-12"]


def test_an_entry_covers_only_the_fields_its_own_difference_names() -> None:
    """npm:2026.8.31: CMP-3/a1's reproduced initialize pair also differs in `listChanged`, another change;
    its entry covers the version its difference names, so CMP-3 left out of the baseline is new. Here the
    entry's pair differs in the labels (named) and the count (not named); a departure on the count alone is
    new."""
    entry = Baseline(project="p", deviations=[BaselineEntry(
        record="OBJ-3", reason="sorted labels", signature=_sig(PLAIN), witness=PLAIN)])
    obj3 = _rv("OBJ-3", "deviates", PLAIN,
               evidence=_pair(_response(["zeta", "alpha"]), _response(["alpha", "zeta"], 4)))
    count = _rv("RTE-4", "deviates", PLAIN, evidence=_pair(_response([]), _response([], 4)))
    gate = _gate([obj3, count], entry, {"OBJ-3": PLAIN, "RTE-4": PLAIN})
    assert not gate.passed and [e.record for e in gate.unexpected] == ["RTE-4"]


def test_an_unlisted_departure_with_a_difference_of_its_own_is_new() -> None:
    """Its replayed example differs on the count too, which no entry pins: new, even under OBJ-4/a1's
    cause."""
    rte4 = _rv("RTE-4", "deviates", PLAIN, "OBJ-4/a1",
               evidence=_pair(_response(["zeta", "alpha"]), _response(["alpha", "zeta"], 4)))
    gate = _gate([*ENTRY_SEEN, rte4])
    assert not gate.passed and [e.record for e in gate.unexpected] == ["RTE-4"]


def test_a_departure_only_the_opening_calls_show_again_is_confirmed() -> None:
    """Its own example shows nothing on fresh processes, the opening calls show the fork's sorted labels:
    real, so new without a baseline (the first gate of the fork fails), and the entry's with one."""
    alone = _gate([_rv("RTE-5", "deviates", PLAIN, evidence=LABELS_ELSEWHERE)], baseline=None)
    assert not alone.passed and [e.record for e in alone.unexpected] == ["RTE-5"] and not alone.seen_once
    gate = _gate([*ENTRY_SEEN, _rv("RTE-5", "deviates", PLAIN, evidence=LABELS_ELSEWHERE)])
    assert gate.passed and [e.folded_under for e in gate.expected if e.record == "RTE-5"] == ["OBJ-4/a1"]
    other = LABELS_ELSEWHERE.model_copy(update={"elsewhere": ["branches", "stderr"]})
    gate = _gate([*ENTRY_SEEN, _rv("RTE-5", "deviates", PLAIN, evidence=other)])
    assert not gate.passed and [e.record for e in gate.unexpected] == ["RTE-5"], "a box no entry pins"


def test_an_unlisted_departure_whose_own_witness_differs_is_confirmed_and_new() -> None:
    gate = _gate([*ENTRY_SEEN, _rv("RTE-4", "deviates", COUNTED, evidence=NOT_AGAIN)])
    assert not gate.passed and [e.record for e in gate.unexpected] == ["RTE-4"] and not gate.seen_once


def test_a_departure_no_fresh_process_confirms_is_seen_once_and_does_not_fail() -> None:
    """Its witness is the original's, and its example and the opening calls, replayed on fresh processes,
    answer alike."""
    gate = _gate([*ENTRY_SEEN, _rv("RTE-4", "deviates", PLAIN, evidence=NOT_AGAIN)])
    assert gate.passed and not gate.unexpected
    [row] = gate.seen_once
    assert row.record == "RTE-4" and row.reason.startswith("seen once, not confirmed on a fresh process")
    without = _gate([_rv("RTE-4", "deviates", PLAIN, evidence=NOT_AGAIN)], baseline=None)
    assert without.passed and [e.record for e in without.seen_once] == ["RTE-4"]


def test_a_departure_is_new_unless_a_replay_was_tried_and_showed_nothing() -> None:
    """The gate stays safe: a replay the budget left out, a side that could not start, a check with no call to
    replay, a witness the target did not answer, or no evidence at all is no proof it was seen once."""
    untried = [
        Evidence(reproduced=False, original_spec="npm:0.6.2", not_replayed="the budget", why="the budget"),
        Evidence(reproduced=False, original_spec="npm:0.6.2", why="the original could not replay it (x)"),
        Evidence(reproduced=False, original_spec="npm:0.6.2", own_failure=True, why="no call to replay"),
        None,
    ]
    for evidence in untried:
        gate = _gate([_rv("RTE-4", "deviates", PLAIN, evidence=evidence)], baseline=None)
        assert not gate.passed and [e.record for e in gate.unexpected] == ["RTE-4"], evidence
    unsigned = _rv("RTE-4", "deviates", None, evidence=NOT_AGAIN)
    gate = _gate([unsigned], baseline=None)
    assert not gate.passed and [e.record for e in gate.unexpected] == ["RTE-4"]
    gate = _gate([_rv("RTE-4", "deviates", PLAIN, evidence=NOT_AGAIN)], baseline=None, original={})
    assert not gate.passed, "the original's witness could not be taken"


def test_a_stale_entry_covers_nothing() -> None:
    """An entry the run did not re-observe pins no difference this run can be said to show."""
    rte4 = _rv("RTE-4", "deviates", PLAIN, evidence=_pair(_response(["zeta", "alpha"]),
                                                         _response(["alpha", "zeta"])))
    gate = _gate([_rv("OBJ-4/a1", "holds"), _rv("ABS-11", "holds"), rte4])
    assert not gate.passed and [e.record for e in gate.unexpected] == ["RTE-4"]


def test_nothing_is_replayed_when_the_search_saw_exactly_the_baseline() -> None:
    asked, sign = _signer({})
    asked_original, sign_original = _signer({})
    replay = replay_pinned(ENTRY_SEEN, BASELINE, CANONICAL, sign=sign, sign_original=sign_original)
    assert replay == PinnedReplay()
    assert asked == [] and asked_original == []


def test_unreliable_only_until_a_fresh_process_reproduces() -> None:
    """An example that failed, then passed when run again on the shared process is "unreliable" only while no
    fresh process reproduced the departure (issue 43: ABS-11 of the sorted-branches fork: two calls)."""
    from conformance.core.failure_text import RUN_AGAIN, UNRELIABLE
    from conformance.gate.evidence import _reliable

    own = "OBJ-4/a1 contradicted: labels ['alpha', 'zeta']"
    reproduced = Evidence(reproduced=True, original_spec="npm:0.6.2")
    tried = Evidence(reproduced=False, original_spec="npm:0.6.2", no_difference=True)
    for reason in (f"{RUN_AGAIN}: {own}", f"{UNRELIABLE}: {own}"):  # as said now, and in older reports
        unreliable = _reliable(reason, tried)  # fresh processes tried, nothing differed: unreliable
        assert unreliable.startswith("unreliable: ") and unreliable.endswith(f"no difference: {own}")
        said = _reliable(reason, reproduced)
        assert "unreliable" not in said and said.startswith("OBJ-4/a1 contradicted") and "reproduced" in said
    assert _reliable("labels differ", reproduced) == "labels differ"


def test_a_flaky_example_no_fresh_process_was_tried_on_is_said_not_judged() -> None:
    """fork-memory-budget's LOOP-A ("[memory] 50 thoughts retained" at every 50th thought) failed once and
    passed when run again on the shared process, deterministically: "unreliable" only after fresh processes
    were tried and showed nothing (issue 43); a replay past the budget, or one showing only another change,
    says what happened, and "reproduced" only where its own failure was shown again."""
    from conformance.core.failure_text import RUN_AGAIN, UNRELIABLE
    from conformance.gate.evidence import _reliable

    own = "LOOP-A contradicted: stderr holds “[memory] 50 thoughts retained” beside the box"
    reason = f"{UNRELIABLE}: {own}"
    for evidence in (Evidence(reproduced=False, original_spec="npm:0.6.2", not_replayed="budget"),
                     Evidence(reproduced=True, original_spec="npm:0.6.2", not_its_failure=True)):
        said = _reliable(reason, evidence)
        assert "unreliable" not in said and "reproduced" not in said, said
        assert said == f"{RUN_AGAIN}: {own}"


def test_an_artifact_step_one_side_could_not_observe_differs_about_nothing() -> None:
    """A `cmd:` fork has no installed README: its readme-inputs step answers "not available" where npm:0.6.2
    answers its README's lines. That is nothing observed, not a difference (safe-terminal's CMP-2/a2 was
    confirmed new on it alone under ci 11, issue 43); a README that reads otherwise still is one."""
    readme = [WitnessAnswer(step="readme-inputs", answer=json.dumps(["- `thoughtNumber` (integer)"]))]
    unavailable = [WitnessAnswer(step="readme-inputs", answer=json.dumps({"artifact": "not available"}))]
    reworded = [WitnessAnswer(step="readme-inputs", answer=json.dumps(["- `thoughtNumber` (number)"]))]
    assert witness_keys(readme, unavailable) == frozenset()
    assert witness_keys(unavailable, readme) == frozenset()
    assert witness_keys(readme, reworded) != frozenset()


SEARCH_ONLY = Baseline(project="p", deviations=[
    BaselineEntry(record="OBJ-4/a1", reason="we sort the labels", signature=_sig(SORTED), witness=SORTED),
    BaselineEntry(record="RTE-4", reason="found by the search", signature=_sig(PLAIN), witness=PLAIN)])
"""RTE-4 an entry of its own whose witness answers as the original's on fresh processes: the search alone
found it, through an example other seeds do not draw (typescript-port, held-out-multi-4: OBJ-4, OBJ-14,
OBJ-15, RTE-7 stale under dev 22, 33 and ci 11)."""


def test_an_entry_whose_witness_never_departed_is_kept_while_another_departs_as_pinned() -> None:
    verdicts = [_rv("OBJ-4/a1", "deviates", SORTED), _rv("RTE-4", "holds")]
    replay = _replay(verdicts, {"OBJ-4/a1": SORTED, "RTE-4": PLAIN}, THE_ORIGINAL, SEARCH_ONLY)
    assert set(replay.reobserved) == {"RTE-4"}
    assert "never departed" in replay.reobserved["RTE-4"]
    gate = evaluate_gate(verdicts, SEARCH_ONLY, baseline_path="b", canonical=CANONICAL,
                         reobserved=replay.reobserved)
    assert gate.passed and not gate.stale


def test_an_entry_whose_witness_never_departed_is_stale_on_the_original() -> None:
    """Nothing of the baseline departs: the unmodified original is stale on every entry, that one too."""
    verdicts = [_rv("OBJ-4/a1", "holds"), _rv("RTE-4", "holds")]
    replay = _replay(verdicts, {"OBJ-4/a1": KEY_ORDER, "RTE-4": PLAIN}, THE_ORIGINAL, SEARCH_ONLY)
    assert replay.reobserved == {}
    gate = evaluate_gate(verdicts, SEARCH_ONLY, baseline_path="b", canonical=CANONICAL,
                         reobserved=replay.reobserved)
    assert not gate.passed and {e.record for e in gate.stale} == {"OBJ-4/a1", "RTE-4"}


def test_an_entry_whose_witness_never_departed_but_now_answers_otherwise_is_stale() -> None:
    """Its witness answering otherwise than pinned is no proof it still departs: not kept."""
    verdicts = [_rv("OBJ-4/a1", "deviates", SORTED), _rv("RTE-4", "holds")]
    replay = _replay(verdicts, {"OBJ-4/a1": SORTED, "RTE-4": COUNTED}, THE_ORIGINAL, SEARCH_ONLY)
    assert "RTE-4" not in replay.reobserved


def test_the_gate_sentence_does_not_call_a_kept_entry_re_observed() -> None:
    from conformance.report.text import gate_sentence

    verdicts = [_rv("OBJ-4/a1", "deviates", SORTED), _rv("RTE-4", "holds")]
    replay = _replay(verdicts, {"OBJ-4/a1": SORTED, "RTE-4": PLAIN}, THE_ORIGINAL, SEARCH_ONLY)
    sentence = gate_sentence(evaluate_gate(verdicts, SEARCH_ONLY, baseline_path="b", canonical=CANONICAL,
                                           reobserved=replay.reobserved))
    assert "RTE-4 not reached by this run's search and kept" in sentence
    assert "re-observed" not in sentence
