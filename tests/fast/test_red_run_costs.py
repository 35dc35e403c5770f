"""What a red run pays for its evidence (issue 46), and that paying less changes nothing a report says.

A departing target's run replays each departure's sequence on a fresh process of it and of the original. The
pairs are replayed ahead, side by side, as the walk will ask for them (causes, the departures within the
budget, the fixed opening calls and the confirmations past it), each side asked on its own thread; the
original's witnesses run on one process (it keeps nothing across processes). Real processes: the small
counting server, once exact (the original) and once one too high (the fork). No assertion reads a clock.
"""

from __future__ import annotations

import json
import shlex
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.view import load_catalog_view
from conformance.catalog.witnesses import default_witnesses
from conformance.cli.runner import reporting
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import RunResults, TestOutcome
from conformance.drivers import process
from conformance.gate import evidence
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.gate.evidence import CONFIRM_REPLAYS, MAX_REPLAYS, original_target, with_evidence
from conformance.gate.pinned import original_signatures
from conformance.gate.run_options import RunOptions
from conformance.gate.signatures import SPARES, RecordSignature, _WitnessSession, witness_signatures
from conformance.report.model import GateEntry, Preflight, Report, RunInfo, WitnessAnswer
from conformance.targets.specs import default_cache_dir
from tests.fast.test_record_evidence import _counting, _frames, _report
from tests.servers import command

CATALOG = load_catalog_view()
TARGET = TargetIdentity(spec="cmd:node fork.js", kind="cmd", command=["node", "fork.js"])
HARNESS = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")


def _red(extra: int) -> Report:
    """A red run without a baseline: every departure new, but the last (which a baseline would list)."""
    report = _report(extra=extra)
    departing = [rv for rv in report.records if rv.verdict == "deviates"]
    unlisted = [GateEntry(record=rv.id, verdict=rv.verdict, expected="holds") for rv in departing]
    return report.model_copy(update={"gate": report.gate.model_copy(
        update={"unexpected": unlisted[:-1], "passed": False})})


BUDGET = 4
"""The report's replay budget in the test (`MAX_REPLAYS` patched): past it, with confirmations, as past the
product's 16, which replayed 40 pairs of sequences up to 20 calls long, twice (42 s of CI's fast tier)."""


def test_a_red_runs_pairs_are_replayed_ahead_and_none_for_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the budget, with confirmations: every pair the walk asks for was already started on the pool
    (none replayed while the walk waits on it alone), every pair started is one it asks for, and the report
    and the processes are those of replaying each pair when asked."""
    assert BUDGET < MAX_REPLAYS
    monkeypatch.setattr(evidence, "MAX_REPLAYS", BUDGET)
    report = _red(extra=BUDGET + 2)
    replayed: list[tuple[str, tuple[str, ...]]] = []
    ahead: list[tuple[str, ...]] = []
    replay_both = evidence._replay_both
    prefetch = evidence._Replays.prefetch

    def noted(*args: object, **kwargs: object) -> object:
        replayed.append((threading.current_thread().name, tuple(args[2])))  # type: ignore[arg-type]
        return replay_both(*args, **kwargs)  # type: ignore[arg-type]

    def noting(self: evidence._Replays, sequences: object) -> None:
        wanted = [tuple(s) for s in sequences]  # type: ignore[attr-defined]
        ahead.extend(wanted)
        prefetch(self, wanted)

    monkeypatch.setattr(evidence, "_replay_both", noted)
    monkeypatch.setattr(evidence._Replays, "prefetch", noting)
    before = process.processes_started()
    out = with_evidence(report, _counting(1, "cmd:fork"), _counting(0, "reference"), timeout=20)
    started = process.processes_started() - before
    # The budget's 4, 3 confirmations (the last departure is listed), the opening calls: two processes each.
    assert CONFIRM_REPLAYS >= 3
    assert started == 2 * (BUDGET + 3) + 2, started
    on_main = [len(frames) for name, frames in replayed if not name.startswith("evidence-replay")]
    assert not on_main, f"replayed while the walk waited on them alone: sequences of {on_main} frames"
    assert len(replayed) == len({frames for _, frames in replayed}), "a sequence was replayed twice"
    assert {frames for _, frames in replayed} == set(ahead), "a pair replayed ahead was never asked for"

    replayed.clear()
    monkeypatch.setattr(evidence._Replays, "prefetch", lambda self, sequences: None)
    before = process.processes_started()
    when_asked = with_evidence(report, _counting(1, "cmd:fork"), _counting(0, "reference"), timeout=20)
    assert process.processes_started() - before == started
    assert out.root_causes == when_asked.root_causes
    assert [(rv.id, rv.explained_by, rv.evidence, rv.reason) for rv in out.records] == [
        (rv.id, rv.explained_by, rv.evidence, rv.reason) for rv in when_asked.records]


def test_both_sides_of_a_pair_are_asked_each_on_its_own_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The original's sequence on a thread of its own while the target's runs: each process still asked alone,
    in order, and each side's answers its own (the fork's count one higher)."""
    sides: list[tuple[str, bool]] = []
    replay = evidence._replay

    def noted(*args: object, ended: bool = False) -> object:
        sides.append((threading.current_thread().name, ended))
        return replay(*args, ended=ended)  # type: ignore[arg-type]

    monkeypatch.setattr(evidence, "_replay", noted)
    theirs, ours = evidence._replay_both(_counting(0, "npm:0.6.2"), _counting(1, "cmd:fork"), _frames(2), 20)
    assert isinstance(theirs, list) and isinstance(ours, list)
    original_thread = next(name for name, ended in sides if not ended)
    target_thread = next(name for name, ended in sides if ended)
    assert original_thread.startswith("evidence-original") and original_thread != target_thread, sides
    calls = [(a.response, b.response) for a, b in zip(theirs, ours, strict=True) if a.method == "tools/call"]
    assert 'thoughtHistoryLength\\": 1' in calls[0][0] and 'thoughtHistoryLength\\": 2' in calls[0][1], calls
    assert 'thoughtHistoryLength\\": 3' in calls[1][1] and 'thoughtHistoryLength\\": 2' in calls[1][0], calls


def test_the_originals_witnesses_sign_alike_on_one_process_fewer() -> None:
    """A server that keeps nothing across processes signs the same with or without the second process that
    looks for a carried store: the witnesses go on in a process sent the same one call either way."""
    spec = _counting(0, "reference")
    records = [rid for rid in default_witnesses().records if rid.startswith(("OBJ-", "CMP-1", "RTE-3"))][:6]
    before = process.processes_started()
    looked = witness_signatures(spec, records, timeout=20)
    both = process.processes_started() - before
    before = process.processes_started()
    known = witness_signatures(spec, records, timeout=20, stateless=True)
    assert process.processes_started() - before == both - 1
    assert looked and {rid: s.signature for rid, s in looked.items()} == {
        rid: s.signature for rid, s in known.items()}
    assert [s.witness for s in looked.values()] == [s.witness for s in known.values()]


def test_the_originals_refused_witnesses_are_not_signed_again_alone(tmp_path: Path) -> None:
    """The original keeps nothing from a refused call: a record whose witness call it refuses, after other
    records, is not signed again alone on a fresh process (a process per such record, 11-13 per red run, the
    largest share of a red run's signing); the signatures and answers are the same either way."""
    records = ["CMP-2", "OBJ-8", "RTE-3"]  # the last two send calls the original refuses
    before = process.processes_started()
    fewer = original_signatures(records, cache_dir=default_cache_dir(), timeout=20,
                                transcript_path=tmp_path / "originals.jsonl")
    assert process.processes_started() - before == 1
    before = process.processes_started()
    alone = witness_signatures(original_target(default_cache_dir()), records, timeout=20, stateless=True)
    assert process.processes_started() - before > 1, "the refused records were signed again alone"
    assert sorted(fewer) == records
    assert {rid: s.signature for rid, s in fewer.items()} == {rid: s.signature for rid, s in alone.items()}
    assert [s.witness for s in fewer.values()] == [alone[rid].witness for rid in fewer]


def test_a_record_signed_again_alone_takes_a_process_started_ahead() -> None:
    """A red run signs 10-16 records again alone, one after another, each on a fresh process whose start is
    most of its cost: once the first is, `SPARES` more are started and initialized ahead, and the next one
    takes the oldest, which answers the probe as a fresh process does (nothing was sent to it before)."""
    session = _WitnessSession(_counting(1, "cmd:fork"), 20, None)
    try:
        session.ahead = True
        session.restart()  # a fresh process, and SPARES more started ahead
        fresh = session.probe()
        spares = [spare.result()[0] for spare in list(session._spares)]
        assert len(spares) == SPARES and session.driver not in spares
        session.restart()
        assert session.driver is spares[0]
        assert session.probe() == fresh is not None
    finally:
        session.close()
    assert not any(spare.is_alive() for spare in spares), "a spare left running"


_SEQUENCES = st.lists(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=3).map(tuple),
                      max_size=12)


@given(_SEQUENCES, st.sets(st.integers(0, 11)), st.integers(0, 20), st.integers(0, 20))
def test_split_is_the_order_and_the_budget_the_walk_asks_in(
    sequences: list[tuple[str, ...]], done_at: set[int], spent: int, cap: int
) -> None:
    """`split` says which sequences `get` will replay, in the order asked: each once, none already replayed,
    no more than the budget left; the rest are past it."""
    replays = evidence._Replays(_counting(1, "cmd:fork"), _counting(0, "reference"), 1.0)
    for i in done_at:
        if i < len(sequences):
            replays.done[sequences[i]] = ("", "")
    replays.spent, replays.cap = spent, cap
    within, past = replays.split(sequences)
    new = list(dict.fromkeys(s for s in sequences if s not in replays.done))
    assert within == new[:max(0, cap - spent)]
    assert past == set(new) - set(within)


def _compact(ids: list[int]) -> list[str]:
    """initialize, initialized, then a call per id (thought n of 9), written as the harness writes frames."""
    frames = [json.loads(f) for f in _frames(len(ids))]
    for frame, request_id in zip(frames[2:], ids, strict=True):
        frame["id"] = request_id
    return [json.dumps(f, separators=(",", ":")) for f in frames]


def test_sequences_differing_only_in_ids_share_one_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two departures whose examples make the same calls under other request ids are one pair of fresh
    processes, not two; each still spends its budget slot, and the report says what replaying both says."""
    report = _report(extra=2)
    extra = [rv.id for rv in report.records if rv.verdict == "deviates"
             and rv.id not in ("OBJ-2", "CMP-1", "ABS-1")]
    own = {extra[0]: _compact([1, 2, 3]), extra[1]: _compact([40, 41, 42])}
    report = report.model_copy(update={"records": [
        rv.model_copy(update={"counterexample": rv.counterexample.model_copy(update={"replay": own[rv.id]})})
        if rv.id in own and rv.counterexample is not None else rv for rv in report.records]})
    before = process.processes_started()
    shared = with_evidence(report, _counting(1, "cmd:fork"), _counting(0, "reference"), timeout=20)
    sharing = process.processes_started() - before
    monkeypatch.setattr(evidence, "same_calls", tuple)
    before = process.processes_started()
    apart = with_evidence(report, _counting(1, "cmd:fork"), _counting(0, "reference"), timeout=20)
    # The cause's sequence, ABS-1's, and the two extra ones: four pairs replayed apart, three shared.
    assert process.processes_started() - before == 8 and sharing == 6, sharing
    assert shared.root_causes == apart.root_causes
    assert [(rv.id, rv.explained_by, rv.evidence, rv.reason) for rv in shared.records] == [
        (rv.id, rv.explained_by, rv.evidence, rv.reason) for rv in apart.records]
    examples = {rv.id: rv.evidence.example for rv in shared.records if rv.evidence is not None}
    assert [examples.get(r) for r in extra] == [own[r] for r in extra]


_IDS = st.lists(st.integers(1, 2**31), min_size=1, max_size=6, unique=True)


@given(_IDS, st.data())
def test_same_calls_tells_sequences_apart_by_their_calls_not_their_ids(
        ids: list[int], data: st.DataObject) -> None:
    """Any other ids (one for one, none the initialize's 0) give the same key; any other call, a frame written
    otherwise, or ids matched otherwise (one id used twice) give another."""
    others = data.draw(st.lists(st.integers(1, 2**31), min_size=len(ids), max_size=len(ids), unique=True))
    assert evidence.same_calls(_compact(ids)) == evidence.same_calls(_compact(others))
    changed = _compact(ids)
    at = data.draw(st.integers(2, len(changed) - 1))
    for edit in (changed[at].replace('"thought":"t"', '"thought":"u"'), changed[at].replace(",", ", ", 1)):
        assert evidence.same_calls([*changed[:at], edit, *changed[at + 1:]]) != evidence.same_calls(changed)
    if len(ids) > 1:
        assert evidence.same_calls(_compact([ids[0], ids[0], *ids[2:]])) != evidence.same_calls(changed)


def test_a_pair_watched_after_its_last_frame_leaves_its_place_to_the_next(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Six pairs, four asked at once: each pair's watch after its last frame waits until all six are being
    watched, which only happens when a watched pair no longer holds one of the four places (with it held,
    the fifth pair never starts and the barrier breaks). The report's pairs are made as before
    (test_a_red_runs_pairs_are_replayed_ahead_and_none_for_nothing holds them to replaying pair by pair)."""
    report = _report(extra=4)
    assert evidence.SIDE_BY_SIDE < 6 <= 2 * evidence.SIDE_BY_SIDE
    barrier = threading.Barrier(6, timeout=120)
    watch = evidence._watch

    def together(drivers: object, seconds: float) -> None:
        barrier.wait()
        watch(drivers, seconds)  # type: ignore[arg-type]

    monkeypatch.setattr(evidence, "_watch", together)
    before = process.processes_started()
    out = with_evidence(report, _counting(1, "cmd:fork"), _counting(0, "reference"), timeout=20)
    assert process.processes_started() - before == 12 and not barrier.broken
    cause = out.root_causes[0].evidence
    assert cause is not None and cause.reproduced, cause


def test_a_reports_pairs_start_before_its_departures_are_signed(tmp_path: Path) -> None:
    """`assemble_report` shows `foresee` the report before asking for any signature, with the records and
    root causes the signed report has (signatures aside); the runner's `_Ahead` starts the walk's pairs
    there, and the evidence then replays none of its own: the same processes, the same report, as replaying
    when the evidence is asked."""
    statuses = {"RTE-2": "failed", "RTE-3": "failed", "OBJ-4": "passed"}
    tests = [TestOutcome(nodeid=f"suite/test_{i}.py::test_{record}", records=[record], status=status,  # type: ignore[arg-type]
                         message="" if status == "passed" else f"{status}: {record}", examples=1)
             for i, (record, status) in enumerate(statuses.items())]
    results = RunResults(target=TARGET, harness=HARNESS, started="t0", finished="t1", tests=tests)
    order: list[str] = []
    foreseen: list[Report] = []

    def sign(ids: list[str]) -> dict[str, RecordSignature]:
        order.append("sign")
        return {i: RecordSignature(i, "a" * 64, [WitnessAnswer(step="s", answer="now")]) for i in ids}

    def evidence_of(report: Report) -> Report:
        order.append("evidence")
        return report

    def foresee(report: Report) -> None:
        order.append("foresee")
        foreseen.append(report)

    signed = assemble_report(
        catalog=CATALOG.records, canonical=CATALOG.canonical, results=results,
        seen=TargetSeen(TARGET, Preflight(ok=True), {}, "2024-11-05"), harness=HARNESS,
        run=RunInfo(started="t0", finished="t1", duration_s=1.0, jobs=1, processes_started=1, calls_made=1,
                    tests=len(tests), rerun="python -m conformance run"),
        generated="t1", sign=sign, evidence=evidence_of, foresee=foresee)
    assert order == ["foresee", "sign", "evidence"]
    assert signed.root_causes and foreseen[0].root_causes == signed.root_causes
    unsigned = [rv.model_copy(update={"signature": None, "witness": []}) for rv in signed.records]
    assert foreseen[0].records == unsigned and unsigned != signed.records

    report = _report(extra=2)
    options = RunOptions(target=f"cmd:{shlex.join(command('counting', '1'))}", profile="dev", seed=1,
                         out=tmp_path, timeout=20)
    before = process.processes_started()
    with reporting._Ahead(options, lambda made: True) as ahead:
        ahead.start(report)
        assert ahead.replays is not None
        started = len(ahead.replays._ahead)  # submitted to the pool before any signature is asked
        out = ahead.evidenced(report)
    assert started == 4 and ahead.replays.pairs == 4, (started, ahead.replays.pairs)
    assert process.processes_started() - before == 8
    sides = ahead.sides
    assert sides is not None
    asked = with_evidence(report, *sides, timeout=20)
    assert out.root_causes == asked.root_causes
    assert [(rv.id, rv.explained_by, rv.evidence) for rv in out.records] == [
        (rv.id, rv.explained_by, rv.evidence) for rv in asked.records]
