"""Pinned signatures of a fork that stamps its output with the time (issue 43, fork-audit-clock): the time,
dates, epochs, ids and durations in a witness answer are placeholders before it is hashed or shown, so a
baseline pinned on an unchanged fork is neither "changed" nor "stale" in a later run with another clock.

The witness answers are built as gate/signatures.py's `_WitnessSession` builds them (`canonical_response`'s
form plus the call's stderr); the whole path on the real fork is the flap benchmark's (benchmarks/flap.py).
"""

from __future__ import annotations

from conformance.catalog.records import default_catalog
from conformance.core.jsontypes import JSON
from conformance.gate.baseline import Baseline, BaselineEntry, evaluate_gate
from conformance.gate.canonical import without_volatile
from conformance.gate.pinned import replay_pinned
from conformance.gate.signatures import RecordSignature, signed_answers
from conformance.report.model import RecordVerdict

CANONICAL = {r.id: r.id for r in default_catalog().records}


def _box(stamp: str | None) -> str:
    """The stderr box of thought 1/3: the original's header, or the audit-clock fork's with ` @ HH:MM:SS`."""
    header = "💭 Thought 1/3" + (f" @ {stamp}" if stamp else "")
    border = "─" * (len(header) + 2)
    return f"\n┌{border}┐\n│ {header} │\n├{border}┤\n│ {'first'.ljust(len(header))} │\n└{border}┘"


def _answers(stamp: str | None) -> list[tuple[str, JSON]]:
    """LOOP-B's witness as the witness process canonicalizes it: the same call twice, each with its stderr."""
    content: JSON = [{"json": {"thoughtNumber": 1}, "layout": "indent 2", "type": "text"}]
    answer: JSON = {"result": {"isError": False, "content": content}, "stderr": _box(stamp)}
    return [("first", answer), ("again", answer)]


def _signed(record: str, stamp: str | None) -> RecordSignature:
    return signed_answers(record, _answers(stamp))


def _rv(record: str, verdict: str, signed: RecordSignature | None) -> RecordVerdict:
    return RecordVerdict(id=record, kind="obj", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict=verdict, evidence_before="implemented", evidence_after="observed",  # type: ignore[arg-type]
                         signature=signed.signature if signed else None,
                         witness=signed.witness if signed else [], reason="r")


def _baseline(pinned: RecordSignature) -> Baseline:
    return Baseline(project="p", deviations=[BaselineEntry(
        record=pinned.record, reason="the box header carries the time", signature=pinned.signature,
        witness=pinned.witness)])


def test_a_clock_in_the_stderr_box_does_not_change_the_signature_but_the_stamp_itself_does() -> None:
    at_baseline, later = _signed("LOOP-B", "21:26:21"), _signed("LOOP-B", "07:03:59")
    assert at_baseline.signature == later.signature
    assert at_baseline.witness == later.witness and "<time>" in at_baseline.witness[0].answer
    assert at_baseline.signature != _signed("LOOP-B", None).signature  # the fork still departs
    assert at_baseline.signature != _signed("LOOP-B", "at noon").signature  # and other text still counts


def test_an_unchanged_clock_stamping_fork_is_not_changed_under_its_pinned_baseline() -> None:
    """The search sees the departure again, at another time: the gate expects it (was: "changed")."""
    baseline = _baseline(_signed("CMP-5", "21:26:21"))
    gate = evaluate_gate([_rv("CMP-5", "deviates", _signed("CMP-5", "21:58:02"))], baseline,
                         baseline_path="b", canonical=CANONICAL)
    assert gate.passed and not gate.changed and [e.record for e in gate.expected] == ["CMP-5"]


def test_a_pinned_entry_the_search_saw_hold_is_reobserved_at_another_time_not_stale() -> None:
    """LOOP-B holds under the search; its pinned witness, replayed on a fresh process at another time,
    still departs from the original's: not stale (was: stale in every cell of the flap benchmark)."""
    baseline = _baseline(_signed("LOOP-B", "21:26:21"))
    verdicts = [_rv("LOOP-B", "holds", None)]

    def sign(records: list[str]) -> dict[str, RecordSignature]:
        return {r: _signed(r, "22:01:17") for r in records}

    def sign_original(records: list[str]) -> dict[str, RecordSignature]:
        return {r: _signed(r, None) for r in records}

    replay = replay_pinned(verdicts, baseline, CANONICAL, sign=sign, sign_original=sign_original)
    assert set(replay.reobserved) == {"LOOP-B"}
    gate = evaluate_gate(verdicts, baseline, baseline_path="b", canonical=CANONICAL,
                         reobserved=replay.reobserved)
    assert gate.passed and not gate.stale


def test_volatile_tokens_become_placeholders_and_protocol_revisions_stay() -> None:
    value: JSON = {
        "stderr": "at 2026-12-05T21:26:21.123Z, 2026-12-05, 12/5/2026, 9:26:21 PM, took 12.5ms, "
                  "epoch 1764970000 / 1764970000123, id 3f2b1c4e-9a7d-4e21-8c3b-0a1b2c3d4e5f",
        "protocolVersion": "2025-06-18", "offered": "1999-01-01", "thoughtNumber": 3, "ms": 1764970000123,
        "flag": True,
        "text": "Thought 1/3 of 10 steps",
    }
    assert without_volatile(value) == {
        "stderr": "at <datetime>, <date>, <date>, <time>, took <duration>, "
                  "epoch <epoch> / <epoch>, id <uuid>",
        "protocolVersion": "2025-06-18", "offered": "1999-01-01", "thoughtNumber": 3, "ms": "<epoch>",
        "flag": True,
        "text": "Thought 1/3 of 10 steps",
    }
