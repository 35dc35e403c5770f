"""A record's headline shows the difference of the call its own check failed on: held-out-multi-12's
fork-thought-dependencies' OBJ-13 check read the answer echoing `dependsOn` ("the answer reads dependsOn [2],
not missing"), and its headline showed the tools/list its sequence sent first ("properties.dependsOn: absent
on the original …"). Real pairs: fresh processes of the reference and of tests/servers/reference_fork.py
`depends-on` (declares dependsOn, echoes a non-empty one), replayed as a run's evidence replays them."""

from __future__ import annotations

import json
import shlex
import sys
from typing import Final

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.catalog.view import load_catalog_view
from conformance.core.failure_text import ANSWER_READS
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.jsontypes import JSON
from conformance.core.results import RunResults, TestOutcome
from conformance.gate import evidence
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.report.model import Preflight, RunInfo
from conformance.targets.specs import resolve_target
from tests.servers import fork_target

REFERENCE: Final = resolve_target("cmd:" + shlex.join([sys.executable, "-m", "reference_server"]))
FORK: Final = fork_target("depends-on")
TIMEOUT: Final = 30.0
"""Per call: a deadline for a hang, not a measure."""
NODEID: Final = ("conformance/suite/test_absences.py::test_an_extra_declared_argument_at_the_top_of_its_"
                 "range_changes_nothing[cmd:fork]")


def _frames(depends: list[int]) -> list[str]:
    hello = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    plain: dict[str, JSON] = {"thought": "probe: a call with an argument only the served schema declares",
                              "thoughtNumber": 2, "totalThoughts": 3, "nextThoughtNeeded": True}
    calls = [("tools/list", {}),
             ("tools/call", {"name": "sequentialthinking", "arguments": plain}),
             ("tools/call", {"name": "sequentialthinking",
                             "arguments": {**plain, "dependsOn": list(depends)}})]
    return [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}),
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})] + [
        json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        for i, (method, params) in enumerate(calls, start=1)]


@settings(max_examples=2, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=2), min_size=1, max_size=3))
def test_a_check_that_read_an_answer_is_headed_by_that_answer(depends: list[int]) -> None:
    words = (f"{ANSWER_READS} dependsOn {json.dumps(depends)}, not missing\nfor the same call with "
             f"{{\"dependsOn\": {json.dumps(depends)}}} added (dependsOn the top of its range, as the served "
             "schema declares it)")
    catalog = load_catalog_view()
    harness = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")
    target = TargetIdentity(spec="cmd:fork", kind="cmd", command=["fork"])
    results = RunResults(target=target, harness=harness, started="t0", finished="t1", tests=[TestOutcome(
        nodeid=NODEID, records=["OBJ-13"], status="failed", examples=1, message=words,
        contradicted=["OBJ-13"])])
    report = assemble_report(
        catalog=catalog.records, canonical=catalog.canonical, results=results,
        seen=TargetSeen(target, Preflight(ok=True), {}, "2024-11-05"), harness=harness,
        run=RunInfo(started="t0", finished="t1", duration_s=1.0, jobs=1, processes_started=1, calls_made=1,
                    tests=1, rerun="python -m conformance run"), generated="t1")
    cause = next(c for c in report.root_causes if c.records[0] == "OBJ-13")
    cause = cause.model_copy(update={"example": _frames(depends), "test": NODEID})
    with evidence._Replays(FORK, REFERENCE, TIMEOUT) as replays:
        evidenced = evidence._evidenced(cause, report, replays)
    assert evidenced.evidence is not None and evidenced.evidence.reproduced, evidenced
    head = evidenced.summary
    echoed = f"OBJ-13 departs — dependsOn: absent on the original, {json.dumps(depends)} here"
    assert head.startswith(echoed), head
    assert "tools/call" in head and "properties" not in head and "tools/list" not in head, head
