"""A cause is "not reproduced" only when fresh processes showed nothing of it: a difference its failing
checks say they saw is its own even where its records' statements share no word with it (held-out-multi-16's
fork-host-hints: every accepted call's text is prose, then the JSON, and OBJ-4, about the status object's
count, was said to need the shared process's state or timing). Real processes: the reference as the original,
tests/servers/reference_fork.py `prose-first`."""

from __future__ import annotations

import json

from conformance.gate.evidence import with_evidence
from conformance.report.model import ReplayableCounterexample, Report, RootCause, TestRef
from conformance.targets.specs import resolve_target
from tests.servers import fork_target
from tests.verdicts import assembled_report

SAID = "the answer's text is not JSON, where the original answers a JSON object"
PROSE = f"OBJ-4 contradicted: {SAID}: “Recorded thought 2/3. ⏎ {{ ⏎ \"thoughtNumber\": 2, …”"


def _example() -> list[str]:
    """initialize, initialized, one accepted call: what any fresh process of either side accepts."""
    hello = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    arguments = {"thought": "a step", "thoughtNumber": 2, "totalThoughts": 3, "nextThoughtNeeded": True}
    return [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}),
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                        "params": {"name": "sequentialthinking", "arguments": arguments}})]


def _report(rid: str = "OBJ-4", message: str = PROSE) -> Report:
    """`rid` the cause, its check's line `message` (the prose before the JSON), its example one accepted
    call."""
    report = assembled_report([])
    records = [
        rv.model_copy(update={
            "verdict": "deviates", "reason": message,
            "tests": [TestRef(nodeid=f"test_{rid}", status="failed", examples=1, message=message)],
            "counterexample": ReplayableCounterexample(test=f"test_{rid}", falsifying="", exchange=[],
                                                       replay=_example()),
        }) if rv.id == rid else rv
        for rv in report.records
    ]
    cause = RootCause(id="rc-1", records=[rid], explains=[], summary=f"{rid} departs — {message}",
                      example=_example(), test=f"test_{rid}")
    return report.model_copy(update={"records": records, "root_causes": [cause]})


def test_a_difference_its_checks_saw_reproduces_the_cause_on_fresh_processes() -> None:
    fork = fork_target("prose-first")
    out = with_evidence(_report(), fork, resolve_target("reference"), timeout=30)
    evidence = out.root_causes[0].evidence
    assert evidence is not None and evidence.reproduced, evidence
    assert "needs state" not in evidence.why, evidence.why
    assert any("Recorded thought 2/3." in d for d in evidence.differences), evidence.differences


def test_replays_differing_elsewhere_are_no_finding_about_state_or_timing() -> None:
    """A cause whose check saw what no replay shows (an exit at start), while every replay differs in the
    prose: the replays are said to differ, and state or timing is one possibility, not the finding."""
    fork = fork_target("prose-first")
    report = _report("RTE-10", "RTE-10 contradicted: the process exited with status 3 at start")
    evidence = with_evidence(report, fork, resolve_target("reference"), timeout=30).root_causes[0].evidence
    assert evidence is not None and not evidence.reproduced, evidence
    assert "they differ, but in nothing its records or its checks' words name" in evidence.why, evidence.why
    assert not evidence.why.endswith("): it needs state the shared process built up, or timing"), evidence.why


def test_a_record_whose_own_calls_show_nothing_is_reproduced_by_the_opening_calls_its_checks_saw() -> None:
    """A departure whose own sequence is a refused call (answered alike by both) is reproduced by the fixed
    opening calls when they show what its check saw, whatever its statement's words."""
    refused = [*_example()[:2], json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "sequentialthinking", "arguments": {"thought": 7}}})]
    report = _report()
    records = [rv.model_copy(update={
        "verdict": "deviates", "reason": PROSE, "explained_by": "rc-1",
        "tests": [TestRef(nodeid="test_OBJ-3", status="failed", examples=1, message=PROSE)],
        "counterexample": ReplayableCounterexample(test="test_OBJ-3", falsifying="", exchange=[],
                                                   replay=refused)}) if rv.id == "OBJ-3" else rv
        for rv in report.records]
    report = report.model_copy(update={"records": records, "root_causes": [
        report.root_causes[0].model_copy(update={"explains": ["OBJ-3"]})]})
    fork = fork_target("prose-first")
    out = with_evidence(report, fork, resolve_target("reference"), timeout=30)
    own = next(rv.evidence for rv in out.records if rv.id == "OBJ-3")
    assert own is not None and own.reproduced, own
    assert any("Recorded thought" in d for d in own.differences), own.differences
