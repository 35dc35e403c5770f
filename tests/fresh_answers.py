"""Answers of a real server to a few tool calls on a fresh process, compact as a report's evidence keeps them
(gate/evidence.py): the pairs the gate's tests hold against each other come from real processes over stdio."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from conformance.core.jsontypes import JSON
from conformance.core.protocol import PROTOCOL_VERSION, TOOL
from conformance.report.model import Evidence
from conformance.targets.specs import Target, resolve_target
from tests.modified_servers.servers import Modification, materialize, original_entry, target_spec

TIMEOUT = 30.0
"""Per call: a deadline for a hang, not a measure (a loaded machine answers in well under a second)."""


def original() -> Target:
    """npm:0.6.2's own dist/index.js run by node, as the modified servers are."""
    return resolve_target(target_spec(original_entry()))


def built(mod: Modification, folder: Path) -> Target:
    return resolve_target(target_spec(materialize(mod, folder)))


def answers(target: Target, calls: Sequence[dict[str, JSON]]) -> list[str]:
    """Each call's JSON-RPC response (its id dropped, keys sorted), on one fresh process."""
    found: list[str] = []
    with target.wire(timeout=TIMEOUT) as driver:
        driver.initialize(PROTOCOL_VERSION)
        for arguments in calls:
            response = {k: v for k, v in driver.call_tool(TOOL, arguments).response.items() if k != "id"}
            found.append(json.dumps(response, ensure_ascii=False, separators=(",", ":"), sort_keys=True))
    return found


def reproduced(theirs: Target, ours: Target, calls: Sequence[dict[str, JSON]]) -> Evidence:
    """The calls replayed on a fresh process of each side: the first call whose answers differ, as a report's
    evidence says it (reproduced); not reproduced when none differs."""
    a, b = answers(theirs, calls), answers(ours, calls)
    for index, (left, right) in enumerate(zip(a, b, strict=True), start=1):
        if left != right:
            return Evidence(reproduced=True, original_spec="npm:0.6.2",
                            at=f"on the example's tools/call {index}",
                            differences=[f"the answer: {left[:80]} here, {right[:80]} on the target"],
                            original=left, target=right)
    return Evidence(reproduced=False, original_spec="npm:0.6.2", why="no answer differed")
