"""Each departing record gets its pair (its smallest example replayed on fresh processes of the target and of
the original), a record whose sequence is its root cause's reuses that replay, and a report replays at most
`MAX_REPLAYS` sequences, saying which records were left without their own. Real processes: a small server
counting its calls, once exact (the original) and once one too high (the fork)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from conformance.catalog.view import load_catalog_view
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import RunResults
from conformance.drivers import process
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.gate.evidence import CONFIRM_REPLAYS, MAX_REPLAYS, original_target, with_evidence
from conformance.report.markdown import render_markdown
from conformance.report.model import (
    REFERENCE_AS_ORIGINAL,
    GateEntry,
    Preflight,
    ReplayableCounterexample,
    Report,
    RootCause,
    RunInfo,
    TestRef,
)
from conformance.targets.kinds.npm import installed_release
from conformance.targets.specs import Target
from tests.servers import command

CATALOG = load_catalog_view()
HARNESS = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")


def _counting(offset: int, spec: str) -> Target:
    argv = command("counting", str(offset))
    return Target(spec, tuple(argv), TargetIdentity(spec=spec, kind="cmd", command=argv))


def _frames(calls: int) -> list[str]:
    """initialize, initialized, then `calls` accepted calls: a sequence per length."""
    hello = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    head = [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}),
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]

    def call(i: int) -> str:
        arguments = {"thought": "t", "thoughtNumber": i, "totalThoughts": 9, "nextThoughtNeeded": True}
        params = {"name": "sequentialthinking", "arguments": arguments}
        return json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params})

    return head + [call(i) for i in range(1, calls + 1)]


def _report(extra: int) -> Report:
    """OBJ-2 the cause (its example one call), CMP-1 explained with no sequence of its own, ABS-1 explained
    with a sequence of two calls, and `extra` more explained departures with three calls and more each."""
    target = TargetIdentity(spec="cmd:fork", kind="cmd", command=["fork"])
    results = RunResults(target=target, harness=HARNESS, started="t0", finished="t1", tests=[])
    report = assemble_report(
        catalog=CATALOG.records, canonical=CATALOG.canonical, results=results,
        seen=TargetSeen(target, Preflight(ok=True), {}, "2024-11-05"), harness=HARNESS,
        run=RunInfo(started="t0", finished="t1", duration_s=1.0, jobs=1, processes_started=1, calls_made=1,
                    tests=0, rerun="python -m conformance run"),
        generated="t1",
    )
    others = [rv.id for rv in report.records if rv.id not in ("OBJ-2", "CMP-1", "ABS-1")][:extra]
    sequences = {"OBJ-2": _frames(1), "CMP-1": [], "ABS-1": _frames(2)}
    sequences |= {record: _frames(3 + i) for i, record in enumerate(others)}
    records = [
        rv.model_copy(update={
            "verdict": "deviates", "reason": "the count differs",
            "explained_by": None if rv.id == "OBJ-2" else "rc-1",
            "counterexample": ReplayableCounterexample(test=f"test_{rv.id}", falsifying="", exchange=[],
                                                       replay=sequences[rv.id]),
        }) if rv.id in sequences else rv
        for rv in report.records
    ]
    cause = RootCause(id="rc-1", records=["OBJ-2"], explains=[r for r in sequences if r != "OBJ-2"],
                      summary="OBJ-2 departs", example=_frames(1), test="test_OBJ-2")
    return report.model_copy(update={"records": records, "root_causes": [cause]})


def test_each_departure_has_its_pair_and_a_shared_sequence_is_replayed_once() -> None:
    report = _report(extra=1)
    before = process.processes_started()
    out = with_evidence(report, _counting(1, "cmd:fork"), _counting(0, "npm:0.6.2"), timeout=20)
    # Three distinct sequences (the cause's, ABS-1's, the extra one's), two processes each: OBJ-2's own
    # sequence is the cause's and CMP-1 has none, so neither is replayed again.
    assert process.processes_started() - before == 6
    cause = out.root_causes[0].evidence
    assert cause is not None and cause.reproduced and cause.original_spec == "npm:0.6.2"
    # The cause's headline is its pair, in the server's words, not the check that failed.
    headline = out.root_causes[0].summary
    wanted = "OBJ-2 departs — thoughtHistoryLength: 1 on the original, 2 here (reproduced at tools/call"
    assert headline.startswith(wanted), headline
    by_id = {rv.id: rv.evidence for rv in out.records if rv.evidence is not None}
    assert set(by_id) == {rv.id for rv in out.records if rv.verdict == "deviates"}
    assert by_id["OBJ-2"].cause == "rc-1" and "same sequence" in by_id["OBJ-2"].why
    assert by_id["OBJ-2"].breaks, "the cause's own record says why this record"
    # A record without a sequence of its own is never shown another record's pair: its own failure is its
    # evidence, and nothing checks that its change is the cause's, so it is not "explained by" it.
    assert by_id["CMP-1"].cause == "" and by_id["CMP-1"].own_failure and not by_id["CMP-1"].reproduced
    records = {rv.id: rv for rv in out.records}
    assert records["CMP-1"].explained_by is None and "CMP-1" not in out.root_causes[0].explains
    # ABS-1's own pair differs where the cause's does (the count, on a tools/call): explained, checked.
    assert records["ABS-1"].explained_by == "rc-1" and "ABS-1" in out.root_causes[0].explains
    own = by_id["ABS-1"]
    assert own.cause == "" and own.reproduced and own.example == _frames(2)
    assert own.differences == ["result.content[0].text → thoughtHistoryLength: 1 on the original, 2 here"]
    assert '"thoughtHistoryLength\\": 1' in own.original and '"thoughtHistoryLength\\": 2' in own.target
    markdown = render_markdown(out)
    assert "the original (npm:0.6.2)" in markdown and "without a replay of their own" not in markdown



def test_a_cause_whose_replays_differ_elsewhere_keeps_its_checks_words() -> None:
    """OBJ-2's check failed on the box; its replays differ only on the count: the cause's headline stays its
    check's words, its pair is kept marked `not_its_failure`, and the pair is not said to reproduce it
    (nalyk-ts's OBJ-2, its history cap, was headed by the 50-branch cap's refusal; AUDIT.md)."""
    report = _report(extra=0)
    failing = TestRef(nodeid="conformance/suite/test_render.py::test_box[cmd:fork]", status="failed",
                      examples=1, message='the box\'s payload row is "│ x │", where the thought "y" was due')
    records = [rv.model_copy(update={"tests": [failing]}) if rv.id == "OBJ-2" else rv
               for rv in report.records]
    out = with_evidence(report.model_copy(update={"records": records}), _counting(1, "cmd:fork"),
                        _counting(0, "npm:0.6.2"), timeout=20)
    cause = out.root_causes[0]
    assert cause.summary == "OBJ-2 departs", cause.summary
    assert cause.evidence is not None and cause.evidence.reproduced and cause.evidence.not_its_failure
    assert "differ only elsewhere" in cause.evidence.why and "this one does" not in cause.evidence.why, (
        cause.evidence.why)

BUDGET = 4
"""The report's replay budget in the tests past it (`MAX_REPLAYS` patched, `small_budget`): the same walk
past a budget as past the product's 16, with 16 pairs of sequences fewer, up to 20 calls long (8 s a test)."""


@pytest.fixture
def small_budget(monkeypatch: pytest.MonkeyPatch) -> int:
    """`BUDGET` as the report's replay budget."""
    from conformance.gate import evidence

    assert BUDGET < MAX_REPLAYS
    monkeypatch.setattr(evidence, "MAX_REPLAYS", BUDGET)
    return BUDGET


def test_past_the_budget_a_departure_says_it_was_not_replayed_and_shows_no_other_records_pair(
    small_budget: int,
) -> None:
    report = _report(extra=small_budget + 2)
    before = process.processes_started()
    out = with_evidence(report, _counting(1, "cmd:fork"), _counting(0, "reference"), timeout=20)
    # The budget's sequences, and the fixed opening calls, which are outside it (cheap, always replayed):
    # their tools/list shows no difference here, and their calls' differences are no other record's evidence.
    assert process.processes_started() - before == 2 * small_budget + 2
    evidence = [rv.evidence for rv in out.records if rv.verdict == "deviates" and rv.id != "CMP-1"]
    left = [e for e in evidence if e is not None and e.not_replayed]
    # Each replayed one is judged by its own record's words: reproduced, or said to show none of its own.
    assert all(e is not None and (e.reproduced or "no difference of this record's" in e.why)
               for e in evidence if e not in left)
    # The cause's sequence and ABS-1's are two of the replays; every other distinct sequence past the
    # budget says it was not replayed, and is shown with no pair rather than its cause's.
    assert len(left) == (small_budget + 2 + 2) - small_budget
    assert all(e.cause == "" and not e.reproduced and f"at most {small_budget} sequences" in e.not_replayed
               for e in left)
    markdown = render_markdown(out)
    assert f"{len(left)} departure(s) without a replay of their own" in markdown
    assert "Not replayed (the report's replay budget)" in markdown.replace("\\", "")
    # "not reproduced" is said only of a sequence that was replayed.
    tried = {rv.id for rv in out.records if rv.evidence is not None and not rv.evidence.not_replayed
             and not rv.evidence.own_failure and not rv.evidence.reproduced}
    said = {line.split(" — ")[0].removeprefix("- ").replace("\\", "") for line in markdown.splitlines()
            if line.endswith("(not reproduced on fresh processes\\)")}
    assert said <= tried, said - tried
    assert REFERENCE_AS_ORIGINAL in markdown


def test_a_new_departure_past_the_budget_is_replayed_after_all_before_it_gates(small_budget: int) -> None:
    """The gate's new departures (not in a baseline) whose own sequence the budget left out are replayed
    within `CONFIRM_REPLAYS` more: "new" only once a fresh process confirmed it (issue 43: the ABS-12 of
    fork-bounded-session was new under ci 11 on one probe call a fresh process accepts). Only the unlisted
    ones."""
    report = _report(extra=small_budget + 2)
    departing = [rv for rv in report.records if rv.verdict == "deviates"]
    unlisted = [GateEntry(record=rv.id, verdict=rv.verdict, expected="holds") for rv in departing]
    gate = report.gate.model_copy(update={"unexpected": unlisted[:-1], "passed": False})
    before = process.processes_started()
    out = with_evidence(report.model_copy(update={"gate": gate}), _counting(1, "cmd:fork"),
                        _counting(0, "reference"), timeout=20)
    # Every distinct sequence (the cause's, ABS-1's, the extras') is replayed but the last unlisted one's,
    # which the gate accepts (a baseline lists it): the budget's, then 3 more; and the opening calls.
    assert CONFIRM_REPLAYS >= 4 - 1
    assert process.processes_started() - before == 2 * (small_budget + 4 - 1) + 2
    left = {rv.id for rv in out.records if rv.evidence is not None and rv.evidence.not_replayed}
    assert left == {departing[-1].id}
    confirmed = [rv for rv in out.records if rv.id in {e.record for e in unlisted[:-1]} and rv.id != "CMP-1"]
    assert all(rv.evidence is not None and rv.evidence.reproduced for rv in confirmed)


def test_an_empty_cache_makes_the_reference_the_original(tmp_path: Path) -> None:
    assert installed_release("0.6.2", tmp_path) is None
    assert original_target(tmp_path).spec == "reference"


def test_replays_ahead_change_nothing_but_when_they_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sequences the walk is sure to ask for are replayed ahead on a pool (issue 46): the same pairs,
    the same budget, the same processes as replaying each when asked."""
    from conformance.gate import evidence

    report = _report(extra=5)
    threads: list[str] = []
    replay_both = evidence._replay_both

    def noted(*args: object, **kwargs: object) -> object:
        threads.append(threading.current_thread().name)
        return replay_both(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(evidence, "_replay_both", noted)
    before = process.processes_started()
    ahead = with_evidence(report, _counting(1, "cmd:fork"), _counting(0, "npm:0.6.2"), timeout=20)
    started_ahead = process.processes_started() - before
    assert any(name.startswith("evidence-replay") for name in threads), threads
    threads.clear()
    monkeypatch.setattr(evidence._Replays, "prefetch", lambda self, sequences: None)
    before = process.processes_started()
    when_asked = with_evidence(report, _counting(1, "cmd:fork"), _counting(0, "npm:0.6.2"), timeout=20)
    assert not any(name.startswith("evidence-replay") for name in threads), threads
    assert process.processes_started() - before == started_ahead
    assert ahead.root_causes == when_asked.root_causes
    assert [rv.evidence for rv in ahead.records] == [rv.evidence for rv in when_asked.records]


def _described(offset: int, spec: str, added: str) -> Target:
    argv = command("counting", str(offset), added)
    return Target(spec, tuple(argv), TargetIdentity(spec=spec, kind="cmd", command=argv))


def test_a_changed_description_is_reproduced_by_the_cheap_replay_whatever_the_budget(
    small_budget: int,
) -> None:
    """nalyk-ts (issue 42): CMP-2 said "not replayed … it needs state the shared process built up" though a
    fresh tools/list shows the re-worded description. The fixed opening calls end with a tools/list and are
    replayed even past the budget: the cause is reproduced there, and so is a record past the budget."""
    report = _report(extra=small_budget + 2)
    listed = json.dumps({"jsonrpc": "2.0", "id": 99, "method": "tools/list"})
    # CMP-2's and OBJ-5's examples list the tools; CLM-5's (a claim whose words name the description) only
    # calls the tool, so a tools/list difference is not its own.
    own = {"CMP-2": [*_frames(40), listed], "OBJ-5": [*_frames(40), listed], "CLM-5": _frames(42)}
    records = [rv.model_copy(update={"verdict": "deviates", "reason": "the description differs",
                                     "counterexample": ReplayableCounterexample(
                                         test="test_spec", falsifying="", exchange=[], replay=own[rv.id])})
               if rv.id in own else rv for rv in report.records]
    # CMP-2 last: its own example comes after the budget went to the others.
    cause = RootCause(id="rc-2", records=["CMP-2"], summary="CMP-2 departs", example=_frames(41),
                      test="conformance/suite/test_tool_spec.py::test_served_spec_matches_the_original[x]")
    report = report.model_copy(update={"records": records, "root_causes": [*report.root_causes, cause]})
    out = with_evidence(report, _described(0, "cmd:fork", "- PERSISTENT SEQUENCES: saved"),
                        _counting(0, "npm:0.6.2"), timeout=20)
    evidence = out.root_causes[-1].evidence
    assert evidence is not None and evidence.reproduced, evidence
    assert "tools/list" in evidence.at and "PERSISTENT SEQUENCES" in " ".join(evidence.differences)
    assert "needs state" not in evidence.why
    by_id = {rv.id: rv.evidence for rv in out.records if rv.evidence is not None}
    assert by_id["OBJ-5"].reproduced and "tools/list" in by_id["OBJ-5"].at, by_id["OBJ-5"]
    assert not by_id["CLM-5"].reproduced and by_id["CLM-5"].not_replayed, by_id["CLM-5"]


def test_a_description_sharing_words_with_a_store_record_is_not_its_evidence() -> None:
    """nalyk-ts: with the tools/list among the opening calls, OBJ-2 (the append-only history) was shown
    "reproduced at tools/list": the added description line ("save and load thinking sequences across
    sessions") shares words with its statement. A spec difference speaks of a record only by its field."""
    report = _report(extra=0)
    out = with_evidence(report, _described(0, "cmd:fork", "- PERSISTENT SEQUENCES: Save and load thinking "
                                           "sequences across sessions, appended to one process-wide array"),
                        _counting(0, "npm:0.6.2"), timeout=20)
    evidence = out.root_causes[0].evidence
    assert evidence is not None and not evidence.reproduced, evidence


def test_a_re_worded_property_description_is_no_evidence_of_the_status_object() -> None:
    """nalyk-ts: OBJ-4 (the status object's five fields, thoughtNumber among them) was shown "reproduced at
    tools/list" by a difference at `inputSchema.properties.thoughtNumber`. Only a record about the tool spec
    (its description, its schema: OBJ-7 here) takes a tools/list difference from the opening calls."""
    base = _report(extra=0)
    sequences = {"OBJ-4": _frames(5), "OBJ-7": _frames(6)}
    records = [rv.model_copy(update={
        "verdict": "deviates", "reason": "differs", "explained_by": None,
        "counterexample": ReplayableCounterexample(test="test_x", falsifying="", exchange=[],
                                                   replay=sequences[rv.id])})
        if rv.id in sequences else rv for rv in base.records]
    report = base.model_copy(update={"records": records, "root_causes": []})
    argv = command("counting", "0", "", "thoughtNumber")
    fork = Target("cmd:fork", tuple(argv), TargetIdentity(spec="cmd:fork", kind="cmd", command=argv))
    out = with_evidence(report, fork, _counting(0, "npm:0.6.2"), timeout=20)
    by_id = {rv.id: rv.evidence for rv in out.records if rv.evidence is not None}
    assert not by_id["OBJ-4"].reproduced, by_id["OBJ-4"]
    assert by_id["OBJ-7"].reproduced and "tools/list" in by_id["OBJ-7"].at, by_id["OBJ-7"]
