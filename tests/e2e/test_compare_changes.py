"""Single changes to a real release (tests/modified_servers/compare_changes.yaml) compared with the release
itself: each headline names the change as a reviewer would (the words without servers:
tests/fast/test_compare_listing.py; all of the set with `python -m scripts.measure_compare_changes`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.compare import run_comparison
from conformance.compare.engine import ComparisonOutcome
from tests.modified_servers.servers import load_release_changes, materialize_release, target_spec

CHANGES = {c.id: c for c in load_release_changes()}


def _compare(change_id: str, tmp_path: Path, budget_s: float = 4) -> ComparisonOutcome:
    change = CHANGES[change_id]
    base = materialize_release(change, tmp_path / "base", modified=False)
    head = materialize_release(change, tmp_path / "head")
    return run_comparison(target_spec(base), target_spec(head), seed=3, budget_s=budget_s)


def _headline(outcome: ComparisonOutcome, cause: str) -> str:
    found = [c for c in outcome.root_causes if c.id == cause]
    assert found, [(c.id, c.summary) for c in outcome.root_causes]
    return found[0].summary


def test_a_one_word_description_edit_names_its_item_and_words(tmp_path: Path) -> None:
    # The description is compare's fresh tools/list's: no search (0 s) is needed to see it.
    said = _headline(_compare("description-one-word", tmp_path, budget_s=0), "tool-spec")
    assert "item 11 of “You should:”: “truly” → “really”" in said, said


def test_a_cross_field_rule_is_said_as_a_relation(tmp_path: Path) -> None:
    said = _headline(_compare("revises-below-number", tmp_path), "validation")
    assert said.startswith("head refuses `revisesThought` ≥ `thoughtNumber`"), said
    assert "base accepts it" in said


@pytest.mark.parametrize("change_id", ["no-state-between-calls"])
def test_a_head_keeping_no_state_is_one_cause(change_id: str, tmp_path: Path) -> None:
    outcome = _compare(change_id, tmp_path)
    assert [c.id for c in outcome.root_causes] == ["no-state"], [c.summary for c in outcome.root_causes]
    assert outcome.root_causes[0].summary.startswith("head keeps no state between calls")


def test_an_added_tool_is_called_and_what_it_does_to_the_store_said(tmp_path: Path) -> None:
    said = _headline(_compare("tool-added-clears", tmp_path, budget_s=0), "tool-spec")
    assert "called with {} `clear_history` answers “cleared”" in said, said
    assert "it empties the history and it drops every branch" in said, said


def test_a_reworked_box_is_said_in_words_with_the_multi_line_thought_apart(tmp_path: Path) -> None:
    said = _headline(_compare("box-reworked", tmp_path), "render")
    assert "2 narrower than base's" in said and "its header row is padded" in said, said
    assert "the stderr box of a multi-line thought differs" in said and "one row per line" in said, said


@pytest.mark.parametrize(("change_id", "rule"), [
    ("total-thoughts-at-least-one", "head refuses `totalThoughts` below 1"),
    ("branch-id-max-256", "head refuses `branchId` longer than 256 characters"),
])
def test_a_bound_is_found_by_re_testing(change_id: str, rule: str, tmp_path: Path) -> None:
    said = _headline(_compare(change_id, tmp_path), "validation")
    assert rule in said and "re-tested on fresh calls" in said, said
