"""A departure masked by another change's refusal is re-judged past it (gate/detour.py, issue 42): a fork
refusing a thought shorter than 8 characters that also counts words in its box header refuses every short
example first, so CLM-4's own change (the box) was folded under OBJ-9's refusal and never named. Real
processes: the reference as the original, tests/servers/reference_fork.py's forks as the target."""

from __future__ import annotations

import json
import shlex

from conformance.gate.evidence import grouped, its_failure, poisoning_kept, with_evidence
from conformance.report.model import RecordVerdict, ReplayableCounterexample, Report, RootCause, TestRef
from conformance.report.sections.departures import headline
from conformance.targets.specs import Target, resolve_target
from tests.servers import command
from tests.verdicts import assembled_report

SHORT = "Invalid thought: at least 8 characters"


def _fork(mode: str) -> Target:
    return resolve_target("cmd:" + shlex.join(command("reference_fork", mode)))


def _example(thought: str, *, final: bool = False) -> list[str]:
    """initialize, initialized, one plain call carrying `thought`."""
    hello = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    arguments = {"thought": thought, "thoughtNumber": 1, "totalThoughts": 9, "nextThoughtNeeded": not final}
    return [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}),
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": "sequentialthinking", "arguments": arguments}})]


def _report(cause_example: list[str], own_example: list[str], words: str) -> Report:
    """OBJ-9 the cause, CLM-4 proposed as explained by it, each departing on its own example."""
    report = assembled_report([])
    sequences = {"OBJ-9": cause_example, "CLM-4": own_example}
    records = [
        rv.model_copy(update={
            "verdict": "deviates", "reason": "refused",
            "explained_by": None if rv.id == "OBJ-9" else "rc-1",
            "counterexample": ReplayableCounterexample(test=f"test_{rv.id}", falsifying="", exchange=[],
                                                       replay=sequences[rv.id]),
            # Its check met the refusal, and names OBJ-9's record as contradicted, as a suite's check does.
            "tests": [TestRef(nodeid=f"test_{rv.id}", status="failed", examples=1, contradicted=["OBJ-9"],
                              message=f"the call was refused: {words}")],
        }) if rv.id in sequences else rv
        for rv in report.records
    ]
    cause = RootCause(id="rc-1", records=["OBJ-9"], explains=["CLM-4"], summary="OBJ-9 departs",
                      example=cause_example, test="test_OBJ-9")
    return report.model_copy(update={"records": records, "root_causes": [cause]})


def _clm4(mode: str, cause_example: list[str], own_example: list[str],
          words: str = SHORT) -> tuple[RecordVerdict, Report]:
    out = with_evidence(_report(cause_example, own_example, words), _fork(mode), resolve_target("reference"),
                        timeout=30)
    return next(rv for rv in out.records if rv.id == "CLM-4"), out


def test_a_record_masked_by_a_refusal_departs_with_its_own_difference_past_it() -> None:
    """Past the length refusal (its thought sent as 8 plain letters) CLM-4's example shows the box's word
    count, its own change: no longer OBJ-9's refusal, and the detour said in its evidence."""
    rv, out = _clm4("short-refused+word-count", _example("tiny"), _example("abc"))
    assert rv.evidence is not None and rv.evidence.reproduced, rv.evidence
    detour = "masked by rc-1's refusal; re-judged past it (`thought` sent as short plain words)"  # 2nd way
    assert detour in rv.evidence.why, rv.evidence.why
    assert not any("at least 8 characters" in d for d in rv.evidence.differences), rv.evidence.differences
    assert any(d.startswith("stderr") for d in rv.evidence.differences), rv.evidence.differences
    assert rv.explained_by != "rc-1", rv.explained_by
    assert "CLM-4" not in next(c for c in out.root_causes if c.id == "rc-1").explains
    assert headline(rv, rv.evidence).startswith("past rc-1's refusal: stderr"), headline(rv, rv.evidence)


def test_a_kept_report_grouped_again_keeps_the_record_past_the_refusal() -> None:
    """Grouped again from a kept report (`--reattribute`), where the grouping proposes OBJ-9's cause again
    (CLM-4's checks all met the refusal), the pair past the refusal is CLM-4's own failure: not put back."""
    rv, out = _clm4("short-refused+word-count", _example("tiny"), _example("abc"))
    assert rv.evidence is not None
    again = [r.model_copy(update={"explained_by": "rc-1", "evidence": its_failure(r, r.evidence)})
             if r.id == "CLM-4" and r.evidence is not None else r for r in out.records]
    causes = [c.model_copy(update={"explains": [*c.explains, "CLM-4"]}) if c.id == "rc-1" else c
              for c in out.root_causes]
    causes, records = grouped(causes, again, poisoning_kept(causes))
    placed = next(r for r in records if r.id == "CLM-4")
    assert placed.explained_by != "rc-1", placed.explained_by
    assert placed.evidence is not None and not placed.evidence.not_its_failure, placed.evidence


def test_a_record_holding_past_the_refusal_is_explained_by_it_checked() -> None:
    """The refusal alone: past it CLM-4's example shows nothing else: OBJ-9's cause explains it, checked."""
    rv, out = _clm4("short-refused", _example("tiny"), _example("abc"))
    assert rv.explained_by == "rc-1", rv.explained_by
    assert rv.evidence is not None and "explained by it, checked" in rv.evidence.why, rv.evidence
    assert "CLM-4" in next(c for c in out.root_causes if c.id == "rc-1").explains
    line = headline(rv, rv.evidence)
    assert line.startswith("checked past rc-1's refusal, nothing else differs: the original accepts"), line


def test_a_record_no_detour_gets_past_is_said_masked() -> None:
    """A refusal of a required flag (a final thought before the last refused) has no detour keeping the
    call: CLM-4 is said masked, not checked past it."""
    rv, _ = _clm4("early-final-refused", _example("one step", final=True), _example("another", final=True),
                  "Invalid nextThoughtNeeded: a thought before the last cannot end the chain")
    assert rv.evidence is not None, rv
    assert "masked by rc-1's refusal: not checked past it" in rv.evidence.why, rv.evidence.why
    line = headline(rv, rv.evidence)
    assert line.startswith("masked by rc-1's refusal, not checked past it: "), line
