"""`run_comparison` against real servers: a deliberately modified copy of the original is found, shrunk to
one call and attributed; the step comparison and the attribution rules on their own."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.strategies import json_values
from conformance.compare import UnusableTarget, run_comparison
from conformance.compare.attribution import default_rules, load_rules
from conformance.compare.observe import Found, Outcome, Store, compare_step, type_class
from conformance.compare.programs import Step, steps
from conformance.core.errors import HarnessError
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


@pytest.mark.slow
def test_a_server_that_refuses_thought_seven_is_found_shrunk_and_attributed(tmp_path: Path) -> None:
    refusing = patched_original(
        tmp_path,
        "refuses-seven",
        PATCH_ANCHOR,
        "        if (data.thoughtNumber === 7) { throw new Error('Invalid thoughtNumber'); }\n",
    )
    outcome = run_comparison(ORIGINAL, refusing, seed=7, budget_s=20)
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


@pytest.mark.slow
def test_a_server_that_stops_filing_branches_is_attributed_to_branch_records(tmp_path: Path) -> None:
    unbranched = patched_original(
        tmp_path,
        "no-branches",
        "            if (validatedInput.branchFromThought && validatedInput.branchId) {",
        "            validatedInput.branchId = undefined;\n",
    )
    outcome = run_comparison(ORIGINAL, unbranched, seed=3, budget_s=8)
    assert outcome.comparison.differences
    branch = [d for d in outcome.comparison.differences if d.aspect == "store"]
    assert branch and all({"RTE-6", "OBJ-3"} <= set(d.records) for d in branch), outcome.comparison
    assert outcome.root_causes[0].id == "branches"


def test_an_unusable_target_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nothing-here"
    with pytest.raises(UnusableTarget) as caught:
        run_comparison("reference", f"cmd:{missing}", budget_s=1)
    assert "\n" not in str(caught.value) and "nothing-here" in str(caught.value)
    with pytest.raises(HarnessError):
        run_comparison("reference", "reference", profile="nope")


# -- the step comparison, without servers ------------------------------------------------------------


def _answer(text: str, *, is_error: bool = False, store: Store | None = None) -> Outcome:
    parsed = json.loads(text) if text.startswith("{") else None
    return Outcome("result", is_error, text, parsed, parsed is not None, {}, store, "")


@given(steps, st.text(max_size=20), st.booleans())
def test_an_answer_never_differs_from_itself(step: Step, text: str, is_error: bool) -> None:
    outcome = _answer(json.dumps({"t": text}), is_error=is_error)
    assert compare_step(step, outcome, outcome) == []


@given(json_values)
def test_every_value_has_a_type_class(value: object) -> None:
    assert type_class(value) in {  # type: ignore[arg-type]
        "null", "boolean", "zero", "negative number", "fraction", "number beyond 2^53", "integer",
        "empty string", "prototype key", "boolean string", "numeric string", "string", "array", "object",
    }


def test_acceptance_outranks_the_answer_text_and_names_the_field() -> None:
    step = Step(arguments={"thought": "a", "thoughtNumber": "1", "totalThoughts": 1,
                           "nextThoughtNeeded": False})
    refused = _answer('{"error": "Invalid thoughtNumber: must be a number"}', is_error=True)
    accepted = _answer('{"thoughtNumber": 1}', store=(1, ()))
    (found,) = compare_step(step, refused, accepted)
    assert found.signature == "is_error.thoughtNumber.numeric-string.refused-by-a"
    assert found.affects_state


def test_every_rule_names_catalog_records_and_a_known_cause() -> None:
    rules = load_rules()
    assert rules == default_rules()
    refusal = 'isError {"error": "Invalid nextThoughtNeeded: must be a boolean"}'
    coercion = Found("is_error", "nextThoughtNeeded", "boolean string", "refused by a", refusal, "{}", True)
    assert rules.attribute(coercion)[1] == "coercion"
    stricter = Found("is_error", "isRevision", "numeric string", "refused by b", "{}",
                     'isError Expected boolean or "true"/"false" string, received "0" at isRevision', True)
    assert rules.attribute(stricter)[1] == "validation"
    annotations = Found("tools_list", "annotations", "", "added", "", "", False)
    assert rules.attribute(annotations) == (["RTE-1", "CMP-2"], "tool-spec")
    anything = Found("something new", "", "", "", "", "", False)
    assert rules.attribute(anything)[1] in rules.causes
