"""The strength tooling's own pieces: the equivalent-mutants fixture, the interval, the test command."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import jsonschema
import pytest
import yaml

from scripts import mutation

ROOT = Path(__file__).resolve().parents[2]




def test_equivalent_mutants_fixture_matches_its_schema() -> None:
    data = yaml.safe_load((ROOT / "fixtures" / "strength" / "equivalent_mutants.yaml").read_text("utf-8"))
    schema = json.loads((ROOT / "fixtures" / "schemas" / "equivalent_mutants.schema.json").read_text("utf-8"))
    jsonschema.validate(data, schema)
    for entry in data["equivalent"]:
        source = (ROOT / entry["module"]).read_text(encoding="utf-8").splitlines()
        assert entry["line"] <= len(source), entry


@pytest.mark.parametrize(("killed", "total"), [(0, 10), (57, 60), (60, 60), (5, 5)])
def test_wilson_interval_contains_the_observed_score(killed: int, total: int) -> None:
    low, high = mutation.wilson(killed, total)
    assert 0.0 <= low <= killed / total <= high + 1e-12 <= 1.0 + 1e-12
    assert high - low > 0


def test_the_test_command_runs_every_suite_file_against_the_reference() -> None:
    words = shlex.split(mutation.suite_command("dev", 12))
    files = sorted(p.name for p in (ROOT / "conformance" / "suite").glob("test_*.py"))
    ran = [Path(w).name for w in words if w.startswith("conformance/suite/") and "::" not in w]
    assert sorted(ran) == files
    deselected = [words[i + 1] for i, w in enumerate(words) if w == "--deselect"]
    assert deselected == list(mutation.WALL_CLOCK_TESTS)
    assert words[words.index("--target") + 1] == "reference"
    assert "-x" in words and "--hypothesis-seed=12" in words


def test_survivors_matched_to_equivalents_leave_the_denominator() -> None:
    mutants = [
        mutation.Mutant("reference_server/x.py", "op", n, n + 1, 0, "a", "b", outcome)
        for n, outcome in enumerate(["killed", "killed", "survived", "survived", "no-test"])
    ]
    mutation.mark_equivalents(
        mutants,
        [
            {
                "module": "reference_server/x.py",
                "operator": "op",
                "line": 4,
                "mutated": "b",
                "why": "ww",
                "kind": "equivalent",
            }
        ],
    )
    summary = mutation.summarise(mutants, 9, survived_after="dev")
    assert (summary["killed"], summary["survived"], summary["equivalent"]) == (2, 1, 1)
    assert summary["score"] == pytest.approx(2 / 3)
