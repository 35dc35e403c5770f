"""`run_comparison` against real servers: a deliberately modified copy of the original is found, shrunk to
one call and attributed (the step comparison and the rules without servers: tests/fast/test_compare.py).

The two comparisons are independent: both are made ahead on the session's `ahead` pool, side by side (the
second mostly waits on its budget and probes)."""

from __future__ import annotations

import json
import shlex
import shutil
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from conformance.compare import run_comparison
from conformance.compare.engine import ComparisonOutcome
from conformance.targets.specs import resolve_target

ORIGINAL = "npm:0.6.2"
PATCH_ANCHOR = "        if (!data.thoughtNumber || typeof data.thoughtNumber !== 'number') {"


def patched_original(tmp_path: Path, name: str, anchor: str, insert: str) -> str:
    """A `cmd:` target: the original's dist/index.js with `insert` put before `anchor`."""
    target = resolve_target(ORIGINAL)
    entry = Path(target.command[1])
    package = entry.parent.parent
    copy = tmp_path / name
    (copy / "dist").mkdir(parents=True)
    shutil.copyfile(package / "package.json", copy / "package.json")
    (copy / "node_modules").symlink_to(package.parent.parent)
    source = entry.read_text(encoding="utf-8")
    assert anchor in source
    (copy / "dist" / "index.js").write_text(source.replace(anchor, insert + anchor, 1), encoding="utf-8")
    return "cmd:" + shlex.join([target.command[0], str(copy / "dist" / "index.js")])


def _refusing_seven(folder: Path) -> ComparisonOutcome:
    refusing = patched_original(
        folder,
        "refuses-seven",
        PATCH_ANCHOR,
        "        if (data.thoughtNumber === 7) { throw new Error('Invalid thoughtNumber'); }\n",
    )
    return run_comparison(ORIGINAL, refusing, seed=7, budget_s=20)


def _unbranched(folder: Path) -> ComparisonOutcome:
    unbranched = patched_original(
        folder,
        "no-branches",
        "            if (validatedInput.branchFromThought && validatedInput.branchId) {",
        "            validatedInput.branchId = undefined;\n",
    )
    return run_comparison(ORIGINAL, unbranched, seed=3, budget_s=8)


COMPARED = {
    "test_a_server_that_refuses_thought_seven_is_found_shrunk_and_attributed": _refusing_seven,
    "test_a_server_that_stops_filing_branches_is_attributed_to_branch_records": _unbranched,
}
"""Each test's comparison, by the test's name."""


@pytest.fixture(scope="module")
def compared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, ahead: ThreadPoolExecutor
) -> dict[str, Future[ComparisonOutcome]]:
    """The selected tests' comparisons, made ahead, side by side."""
    names = [item.name for item in request.session.items
             if isinstance(item, pytest.Function) and item.module is request.module and item.name in COMPARED]
    return {name: ahead.submit(COMPARED[name], tmp_path_factory.mktemp(name[5:40])) for name in names}


def test_a_server_that_refuses_thought_seven_is_found_shrunk_and_attributed(
    compared: dict[str, Future[ComparisonOutcome]]
) -> None:
    outcome = compared["test_a_server_that_refuses_thought_seven_is_found_shrunk_and_attributed"].result()
    differences = {d.id: d for d in outcome.comparison.differences}
    assert "is_error.thoughtNumber.integer.refused-by-b" in differences, differences
    difference = differences["is_error.thoughtNumber.integer.refused-by-b"]
    calls = [json.loads(frame) for frame in difference.program if '"tools/call"' in frame]
    assert len(calls) == 1, difference.program
    assert calls[0]["params"]["arguments"]["thoughtNumber"] == 7
    assert "RTE-3" in difference.records
    for other in differences.values():
        # A call that is also invalid elsewhere is refused with another text: the same change, seen again.
        sent = [json.loads(f)["params"]["arguments"] for f in other.program if '"tools/call"' in f]
        assert any(isinstance(a, dict) and a.get("thoughtNumber") == 7 for a in sent), other
    cause = next(c for c in outcome.root_causes if difference.id in c.differences)
    assert cause.id == difference.cause == "validation"
    assert "RTE-3" in cause.records


def test_a_server_that_stops_filing_branches_is_attributed_to_branch_records(
    compared: dict[str, Future[ComparisonOutcome]]
) -> None:
    outcome = compared["test_a_server_that_stops_filing_branches_is_attributed_to_branch_records"].result()
    assert outcome.comparison.differences
    branch = [d for d in outcome.comparison.differences if d.aspect == "store"]
    assert branch and all({"RTE-6", "OBJ-3"} <= set(d.records) for d in branch), outcome.comparison
    assert outcome.root_causes[0].id == "branches"
