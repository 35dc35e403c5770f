"""A call one side crashes on and the other refuses first by a rule between numbered fields is said as a
crash, never as "both refuse this call, in other words" (upstream #3007: a `branchId` naming a prototype key
crashes base's store, “this.branches[…].push is not a function”, where head's zod rule “branchFromThought must
be less than thoughtNumber” refuses first, and head crashes alike once the rule holds). Real processes: the
reference against tests/servers/reference_fork.py's `branch-earlier`, re-tested as compare re-tests them."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.observe import observe
from conformance.compare.pair import EMPTY, Retests, fresh_pair
from conformance.compare.retests import with_retests
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.report.model import Difference
from conformance.targets.specs import resolve_target
from tests.servers import fork_target

REFERENCE = resolve_target("reference")
RULED = fork_target("branch-earlier")


@settings(max_examples=3, deadline=None)
@given(st.sampled_from(["constructor", "toString", "hasOwnProperty", "valueOf"]), st.integers(1, 2),
       st.booleans(), st.sampled_from([("base", "head"), ("a", "b")]))
def test_a_rule_refusing_before_a_crash_is_said_as_a_crash(key: str, number: int, swap: bool,
                                                           labels: tuple[str, str]) -> None:
    a, b = (RULED, REFERENCE) if swap else (REFERENCE, RULED)
    la, lb = labels
    crashing, ruling = (lb, la) if swap else (la, lb)
    call: dict[str, JSON] = {"thought": "a branch", "thoughtNumber": number, "totalThoughts": 2,
                             "nextThoughtNeeded": True, "branchFromThought": number, "branchId": key}
    with fresh_pair(a, b, 20.0) as (da, db):
        shown = [observe(d.call_tool(TOOL, call), EMPTY).show() for d in (da, db)]
    frame = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": TOOL, "arguments": call}})
    d = Difference(id="answer.branchId.error-text", aspect="answer", detail="error text", field="branchId",
                   program=[frame], summary="worded differently", a=shown[0], b=shown[1])
    retested = with_retests([d], Retests(a, b, 20.0), la, lb, lambda _: None)
    headline = explain(retested, la, lb, default_known_changes()).headline
    assert "in other words" not in headline, headline
    assert (f"{ruling} refuses first by a rule between numbered fields (“branchFromThought must be less than "
            f"thoughtNumber”) where {crashing} crashes (“this.branches[") in headline, headline
    assert f"{ruling} crashes as {crashing} does" in headline, headline
