"""The long probes on real servers: the original against a copy that keeps only its last 100 thoughts. The
cap is a store difference found at its smallest length (101 calls), grouped under the store's cause and
headed by what was observed (the search logic without servers: tests/fast/test_compare_probes.py)."""

from __future__ import annotations

import json
from pathlib import Path

from conformance.compare import run_comparison
from tests.e2e.test_compare_modified import ORIGINAL, patched_original

CAP = 100
AFTER_PUSH = "            if (validatedInput.branchFromThought && validatedInput.branchId) {"


def test_a_history_cap_is_found_at_its_smallest_length_and_said_as_a_cap(tmp_path: Path) -> None:
    capped = patched_original(
        tmp_path, "capped", AFTER_PUSH,
        f"            if (this.thoughtHistory.length > {CAP}) {{ this.thoughtHistory.shift(); }}\n",
    )
    outcome = run_comparison(ORIGINAL, capped, seed=5, budget_s=6, labels=("original", "capped"))
    probed = [d for d in outcome.comparison.differences if d.detail == "long probe"]
    assert [d.id for d in probed] == ["store.thoughtHistoryLength.long-probe"], outcome.comparison.differences
    difference = probed[0]
    calls = [json.loads(f) for f in difference.program if '"tools/call"' in f]
    assert len(calls) == CAP + 1
    assert len({c["params"]["arguments"]["thought"] for c in calls}) == CAP + 1, "distinct thoughts"
    assert difference.b.startswith(f"caps it at {CAP} (unchanged over calls {CAP + 1} to ")
    assert difference.a.startswith("keeps it growing by one a call")
    assert {"RTE-5", "ABS-11"} <= set(difference.records)
    cause = next(c for c in outcome.root_causes if difference.id in c.differences)
    assert cause.id == "history-bound" and {"RTE-5", "ABS-11"} <= set(cause.records)
    assert f"accepted calls: capped caps it at {CAP} (" in cause.summary, cause.summary
    assert "; original keeps it growing by one a call (" in cause.summary, cause.summary
    assert f"first differ after call {CAP + 1}" in cause.summary, cause.summary
    assert outcome.comparison.calls > CAP + 1
