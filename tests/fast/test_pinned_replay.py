"""The baseline's pinned witnesses weighed before stale and new (gate/pinned.py), through the API.

The signers stand for the witness processes of the target and the original (what `sign_departures` returns
for them); the whole path on real forks is tests/e2e/test_pinned_replay.py.
"""

from __future__ import annotations

from collections.abc import Mapping

from conformance.catalog.records import default_catalog
from conformance.gate.baseline import Baseline, BaselineEntry, ExplainedEntry, evaluate_gate
from conformance.gate.pinned import PinnedReplay, Signer, replay_pinned
from conformance.gate.signatures import RecordSignature
from conformance.report.model import RecordVerdict, Verdict

CANONICAL = {r.id: r.id for r in default_catalog().records}
FORK, ORIGINAL = "f" * 64, "0" * 64
"""OBJ-4/a1's witness on the fork (sorted branches) and on the original."""


def _rv(record: str, verdict: Verdict, signature: str | None = None, explained_by: str | None = None
        ) -> RecordVerdict:
    return RecordVerdict(id=record, kind="obj", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict=verdict, evidence_before="implemented", evidence_after="observed",
                         signature=signature, explained_by=explained_by)


def _signer(signatures: Mapping[str, str]) -> tuple[list[list[str]], Signer]:
    asked: list[list[str]] = []

    def sign(records: list[str]) -> dict[str, RecordSignature]:
        asked.append(records)
        return {r: RecordSignature(r, signatures[r], []) for r in records if r in signatures}

    return asked, sign


BASELINE = Baseline(project="p", deviations=[BaselineEntry(
    record="OBJ-4/a1", reason="we sort the labels", signature=FORK,
    explains=[ExplainedEntry(record="ABS-11", signature="1" * 64)])])
"""The sorted-branches fork's: OBJ-4/a1 pinned with its departing witness, ABS-11 folded under it (its own
witness is the original's: it departed only through OBJ-4/a1's labels)."""


def _replay(verdicts: list[RecordVerdict], fork: Mapping[str, str], original: Mapping[str, str]
            ) -> PinnedReplay:
    _, sign = _signer(fork)
    _, sign_original = _signer(original)
    return replay_pinned(verdicts, BASELINE, CANONICAL, sign=sign, sign_original=sign_original)


def test_an_entry_the_search_missed_is_not_stale_while_its_pinned_witness_still_departs() -> None:
    verdicts = [_rv("OBJ-4/a1", "holds"), _rv("ABS-11", "holds")]
    replay = _replay(verdicts, {"OBJ-4/a1": FORK, "ABS-11": "1" * 64},
                     {"OBJ-4/a1": ORIGINAL, "ABS-11": "1" * 64})
    assert set(replay.reobserved) == {"OBJ-4/a1", "ABS-11"}
    gate = evaluate_gate(verdicts, BASELINE, baseline_path="b", canonical=CANONICAL,
                         reobserved=replay.reobserved)
    assert gate.passed and not gate.stale
    assert {e.record for e in gate.expected if e.witnessed} == {"OBJ-4/a1", "ABS-11"}


def test_the_original_is_stale_under_the_forks_baseline() -> None:
    verdicts = [_rv("OBJ-4/a1", "holds"), _rv("ABS-11", "holds")]
    replay = _replay(verdicts, {"OBJ-4/a1": ORIGINAL, "ABS-11": "1" * 64},
                     {"OBJ-4/a1": ORIGINAL, "ABS-11": "1" * 64})
    assert replay.reobserved == {}
    gate = evaluate_gate(verdicts, BASELINE, baseline_path="b", canonical=CANONICAL,
                         reobserved=replay.reobserved)
    assert not gate.passed and {e.record for e in gate.stale} == {"OBJ-4/a1", "ABS-11"}


def test_a_pinned_witness_equal_to_the_originals_vouches_for_nothing() -> None:
    """A witness that never showed the departure cannot say it is still there: the search's verdict stands."""
    verdicts = [_rv("OBJ-4/a1", "holds"), _rv("ABS-11", "holds")]
    replay = _replay(verdicts, {"OBJ-4/a1": FORK, "ABS-11": "1" * 64}, {"OBJ-4/a1": FORK, "ABS-11": "1" * 64})
    assert replay.reobserved == {}


def test_an_unlisted_departure_showing_an_entrys_pinned_difference_is_covered() -> None:
    verdicts = [_rv("OBJ-4/a1", "deviates", FORK), _rv("ABS-11", "deviates", "1" * 64, "OBJ-4/a1"),
                _rv("RTE-4", "deviates", "4" * 64, "OBJ-4/a1")]
    replay = _replay(verdicts, {}, {"OBJ-4/a1": ORIGINAL, "ABS-11": "1" * 64, "RTE-4": "4" * 64})
    assert replay.covered == {"RTE-4": "OBJ-4/a1"}
    gate = evaluate_gate(verdicts, BASELINE, baseline_path="b", canonical=CANONICAL, covered=replay.covered)
    assert gate.passed and not gate.unexpected
    [row] = [e for e in gate.expected if e.record == "RTE-4"]
    assert row.folded_under == "OBJ-4/a1" and row.reason == "we sort the labels" and row.witnessed


def test_an_unlisted_departure_with_a_difference_of_its_own_is_new() -> None:
    verdicts = [_rv("OBJ-4/a1", "deviates", FORK), _rv("ABS-11", "deviates", "1" * 64, "OBJ-4/a1"),
                _rv("RTE-4", "deviates", "5" * 64, "OBJ-4/a1")]
    replay = _replay(verdicts, {}, {"OBJ-4/a1": ORIGINAL, "ABS-11": "1" * 64, "RTE-4": "4" * 64})
    assert replay.covered == {}
    gate = evaluate_gate(verdicts, BASELINE, baseline_path="b", canonical=CANONICAL, covered=replay.covered)
    assert not gate.passed and [e.record for e in gate.unexpected] == ["RTE-4"]


def test_an_unlisted_departure_of_another_cause_is_new() -> None:
    verdicts = [_rv("OBJ-4/a1", "deviates", FORK), _rv("ABS-11", "deviates", "1" * 64, "OBJ-4/a1"),
                _rv("RTE-4", "deviates", "4" * 64)]
    replay = _replay(verdicts, {}, {"OBJ-4/a1": ORIGINAL, "ABS-11": "1" * 64, "RTE-4": "4" * 64})
    assert replay.covered == {}


def test_nothing_is_replayed_when_the_search_saw_exactly_the_baseline() -> None:
    verdicts = [_rv("OBJ-4/a1", "deviates", FORK), _rv("ABS-11", "deviates", "1" * 64, "OBJ-4/a1")]
    asked, sign = _signer({})
    asked_original, sign_original = _signer({})
    replay = replay_pinned(verdicts, BASELINE, CANONICAL, sign=sign, sign_original=sign_original)
    assert replay == PinnedReplay()
    assert asked == [] and asked_original == []


def test_unreliable_only_until_a_fresh_process_reproduces() -> None:
    """An example that failed, then passed when run again on the shared process is "unreliable" only while no
    fresh process reproduced the departure (issue 43: ABS-11 of the sorted-branches fork: two calls)."""
    from conformance.core.failure_text import UNRELIABLE
    from conformance.gate.evidence import _reliable
    from conformance.report.model import Evidence

    reason = f"{UNRELIABLE}: OBJ-4/a1 contradicted: labels ['alpha', 'zeta']"
    reproduced = Evidence(reproduced=True, original_spec="npm:0.6.2")
    assert _reliable(reason, Evidence(reproduced=False, original_spec="npm:0.6.2")) == reason
    said = _reliable(reason, reproduced)
    assert "unreliable" not in said and said.startswith("OBJ-4/a1 contradicted") and "reproduced" in said
    assert _reliable("labels differ", reproduced) == "labels differ"
