"""A refusal's field said in the headline when its words name none (issue 42): npm:2025.11.25's RTE-3 read
"this server refuses it — “MCP error -32602: Input … Invalid input: expected string, received boolean”", its
field only in the SDK's issue list (`"path": ["branchId"]`); a refusal in those words alone is located from
the refused call's arguments and the served schema, never guessed. And a refused call answered otherwise
only for one extra argument says that argument (probe42's OBJ-8 check, `responseFormat: "markdown"`).

The pairs are real: fresh processes of the reference and of a fork of it (tests/servers/reference_fork.py
`branch-typed`, `branch-typed-bare`, `format-on-request`) over stdio, replayed as a run's evidence replays
them (gate/evidence.py)."""

from __future__ import annotations

import json
import shlex
import sys
from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.view import load_catalog_view
from conformance.core.differences import quoted
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.jsontypes import JSON
from conformance.core.refused_field import field_by_type, json_type
from conformance.core.results import RunResults, TestOutcome
from conformance.gate import evidence
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.gate.beside_call import extra_beside
from conformance.report.model import Preflight, RunInfo
from conformance.suite.contradiction import brief
from conformance.suite.test_absences import REFUSED_BESIDE
from conformance.targets.specs import resolve_target
from tests.servers import fork_target

REFERENCE: Final = resolve_target("cmd:" + shlex.join([sys.executable, "-m", "reference_server"]))
TIMEOUT: Final = 30.0
"""Per call: a deadline for a hang, not a measure."""
BRANCHED: Final[dict[str, JSON]] = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1,
                                    "nextThoughtNeeded": True, "branchId": True, "branchFromThought": 1}
"""RTE-3's example on npm:2025.11.25: two booleans, branchId the one the schema types as a string."""


def _frames(*requests: tuple[str, dict[str, JSON]]) -> list[str]:
    hello = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    frames = [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}),
              json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    return frames + [json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
                     for i, (method, params) in enumerate(requests, start=1)]


def _call(arguments: dict[str, JSON]) -> tuple[str, dict[str, JSON]]:
    return "tools/call", {"name": "sequentialthinking", "arguments": arguments}


LISTED: Final = ("tools/list", {})


def _differences(change: str, *requests: tuple[str, dict[str, JSON]]) -> list[str]:
    """Each request's first difference as a real replay's evidence says it, reference against the fork: the
    request read after the tools/list answers before it (what was served is known), no other request."""
    theirs, ours = evidence._replay_both(REFERENCE, fork_target(change), _frames(*requests), TIMEOUT)
    assert isinstance(theirs, list) and isinstance(ours, list), (theirs, ours)
    said: list[str] = []
    for index in range(1, len(requests) + 1):
        listed = [j for j in range(1, index) if theirs[j].method == "tools/list"]
        found = evidence._compared([theirs[j] for j in [*listed, index]], [ours[j] for j in [*listed, index]],
                                   evidence._about(["RTE-3"]))
        said.append(found[1][0] if found is not None and found[0] == len(listed) + 1 else "")
    return said


def test_the_field_an_issue_list_names_is_said() -> None:
    """npm:2025.11.25's words: the issue list's path names the field its messages leave out."""
    said = _differences("branch-typed", _call(BRANCHED))[0]
    lead = "the original accepts this call and this server refuses it naming `branchId` — "
    assert said.startswith(lead), said
    assert "expected string, received boolean" in said, said


def test_bare_type_words_are_located_by_the_served_schema_and_never_guessed() -> None:
    """Two boolean arguments: before tools/list nothing is named; once the served schema is known it tells
    branchId (typed a string) from nextThoughtNeeded. Where the original refuses nextThoughtNeeded first, the
    located field makes it validation order, not a re-wording."""
    unlisted, _, listed, ordered = _differences("branch-typed-bare", _call(BRANCHED), LISTED, _call(BRANCHED),
                                                _call({**BRANCHED, "nextThoughtNeeded": 1}))
    assert "naming" not in unlisted, unlisted
    assert "“Invalid input: expected string, received boolean”" in unlisted, unlisted
    assert "refuses it naming `branchId` (the only boolean argument the served schema types as string) — " \
        in listed, listed
    lead = "both refuse, naming other fields first: the original `nextThoughtNeeded` "
    assert ordered.startswith(lead), ordered
    assert "this server `branchId`" in ordered, ordered


_values = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5),
                    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.none(),
                                                                         max_size=2))


@given(arguments=st.dictionaries(st.text(max_size=8), _values, max_size=8),
       received=st.sampled_from(["boolean", "number", "string", "array", "object", "null"]))
def test_a_field_is_named_only_when_one_argument_fits(arguments: dict[str, JSON], received: str) -> None:
    """Found only when exactly one argument has the received type; two candidates and no schema: none."""
    field, how = field_by_type(f"Invalid input: expected string, received {received}", arguments)
    fits = [k for k, v in arguments.items() if json_type(v) == received]
    assert (field, bool(how)) == ((fits[0], True) if len(fits) == 1 else ("", False))


def _checks_words() -> str:
    """The OBJ-8 check's failure on the fork, in its own words (suite/test_absences.py)."""
    words = "Invalid thought: must be a string"
    text = json.dumps({"error": words, "status": "failed"}, indent=2)
    plain = {"content": [{"type": "text", "text": text}], "isError": True}
    marked = {"content": [{"type": "text", "text": f"**Error:** {words}"}], "isError": True}
    extra = {"responseFormat": "markdown"}
    return (f"the refusal {quoted(words, 80)} is answered {brief(marked)} for the same call with "
            f"{brief(extra)} added (responseFormat, a value the served schema advertises), where without it "
            f"{brief(plain)}: the original answers a refusal alike whatever else the call carries")


def test_an_extra_argument_that_re_words_a_refusal_is_said_in_the_headline() -> None:
    """The check's own sequence (a refused call, then with `responseFormat: "json"`, again, then with
    "markdown"): the cause's headline names the argument that made the refusal differ."""
    frames = _frames(*(_call(arguments) for arguments in (
        REFUSED_BESIDE, {**REFUSED_BESIDE, "responseFormat": "json"},
        REFUSED_BESIDE, {**REFUSED_BESIDE, "responseFormat": "markdown"})))
    nodeid = ("conformance/suite/test_absences.py::test_an_extra_declared_argument_on_a_refused_call_changes_"
              "nothing[cmd:fork]")
    catalog = load_catalog_view()
    harness = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")
    target = TargetIdentity(spec="cmd:fork", kind="cmd", command=["fork"])
    results = RunResults(target=target, harness=harness, started="t0", finished="t1", tests=[TestOutcome(
        nodeid=nodeid, records=["OBJ-8"], status="failed", examples=1, message=_checks_words())])
    report = assemble_report(
        catalog=catalog.records, canonical=catalog.canonical, results=results,
        seen=TargetSeen(target, Preflight(ok=True), {}, "2024-11-05"), harness=harness,
        run=RunInfo(started="t0", finished="t1", duration_s=1.0, jobs=1, processes_started=1, calls_made=1,
                    tests=1, rerun="python -m conformance run"), generated="t1")
    cause = next(c for c in report.root_causes if c.records[0] == "OBJ-8")
    cause = cause.model_copy(update={"example": frames, "test": nodeid})
    with evidence._Replays(fork_target("format-on-request"), REFERENCE, TIMEOUT) as replays:
        evidenced = evidence._evidenced(cause, report, replays)
    assert evidenced.evidence is not None and evidenced.evidence.reproduced, evidenced
    assert evidenced.summary.startswith('OBJ-8 departs — with `responseFormat: "markdown"` beside it, '), \
        evidenced.summary
    assert "**Error:**" in evidenced.summary, evidenced.summary


def test_only_the_one_argument_added_to_a_call_refused_alike_is_said() -> None:
    """Not beside a call answered otherwise, nor a call differing in more than one argument."""
    refused = json.dumps({"result": {"content": [{"type": "text", "text": "{\"error\": \"x\"}"}],
                                     "isError": True}})
    plain, marked = _frames(_call(REFUSED_BESIDE), _call({**REFUSED_BESIDE, "a": 1}))[2:]
    two = _frames(_call({**REFUSED_BESIDE, "a": 1, "b": [2]}))[2]
    assert extra_beside([plain, marked], [(refused, refused), ("{}", "{ }")], 2) == "with `a: 1` beside it, "
    assert extra_beside([plain, marked], [(refused, "{}"), ("{}", "{ }")], 2) == ""
    assert extra_beside([plain, two], [(refused, refused), ("{}", "{ }")], 2) == ""
    assert extra_beside([marked], [("{}", "{ }")], 1) == ""
