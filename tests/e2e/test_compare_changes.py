"""Single changes to a real release (tests/modified_servers/compare_changes.yaml) compared with the release
itself: each headline names the change as a reviewer would (the words without servers:
tests/fast/test_compare_listing.py; all of the set with `python -m scripts.measure_compare_changes`).

The selected tests' comparisons are independent: each is made ahead on the session's `ahead` pool, two at a
time (hypothesis runs a search per thread), so one's search budget and long probes, which wait on the clock,
overlap the next's."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from conformance.compare import run_comparison
from conformance.compare.engine import ComparisonOutcome
from tests.e2e.ahead import selected
from tests.modified_servers.servers import load_release_changes, materialize_release, target_spec

CHANGES = {c.id: c for c in load_release_changes()}
BUDGETS = {"description-one-word": 0.0, "tool-added-clears": 0.0}
"""Search seconds where the default, 4, is not needed: a description and an added tool are compare's fresh
tools/list's and its calls of a new tool, before any search (0 s)."""
CALLS_OTHER_TOOLS = {"tool-added-clears"}
FIRST = ("box-reworked", "description-one-word", "tool-added-clears")
"""Made first: the reworked box's multi-line difference is the second-to-last fixed witness's, so its 4 s
search goes beside the two comparisons that search nothing (the fresh processes' start-ups)."""
Compared = dict[str, Future[ComparisonOutcome]]


def _compare(change_id: str, folder: Path) -> ComparisonOutcome:
    change = CHANGES[change_id]
    base = materialize_release(change, folder / "base", modified=False)
    head = materialize_release(change, folder / "head")
    # The added tool carries no readOnlyHint: compare calls it only when told to (`--call-other-tools`).
    return run_comparison(target_spec(base), target_spec(head), seed=3, budget_s=BUDGETS.get(change_id, 4.0),
                          call_other_tools=change_id in CALLS_OTHER_TOOLS)


@pytest.fixture(scope="module")
def compared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, ahead: ThreadPoolExecutor
) -> Compared:
    """The selected tests' comparisons, made ahead, two at a time, `FIRST` first (sorted() is stable)."""
    ranked = sorted(selected(request, "change_id"),
                    key=lambda change_id: FIRST.index(change_id) if change_id in FIRST else len(FIRST))
    return {change_id: ahead.submit(_compare, change_id, tmp_path_factory.mktemp(change_id))
            for change_id in ranked}


def _headline(outcome: ComparisonOutcome, cause: str) -> str:
    found = [c for c in outcome.root_causes if c.id == cause]
    assert found, [(c.id, c.summary) for c in outcome.root_causes]
    return found[0].summary


@pytest.mark.parametrize("change_id", ["description-one-word"])
def test_a_one_word_description_edit_names_its_item_and_words(
    change_id: str, compared: Compared
) -> None:
    said = _headline(compared[change_id].result(), "tool-spec")
    assert "item 11 of “You should:”: “truly” → “really”" in said, said


@pytest.mark.parametrize("change_id", ["revises-below-number"])
def test_a_cross_field_rule_is_said_as_a_relation(change_id: str, compared: Compared) -> None:
    said = _headline(compared[change_id].result(), "validation")
    assert said.startswith("head refuses `revisesThought` ≥ `thoughtNumber`"), said
    assert "base accepts it" in said


@pytest.mark.parametrize("change_id", ["no-state-between-calls"])
def test_a_head_keeping_no_state_is_one_cause(change_id: str, compared: Compared) -> None:
    outcome = compared[change_id].result()
    assert [c.id for c in outcome.root_causes] == ["no-state"], [c.summary for c in outcome.root_causes]
    assert outcome.root_causes[0].summary.startswith("head keeps no state between calls")


@pytest.mark.parametrize("change_id", ["tool-added-clears"])
def test_an_added_tool_is_called_and_what_it_does_to_the_store_said(
    change_id: str, compared: Compared
) -> None:
    said = _headline(compared[change_id].result(), "tool-spec")
    assert "adds the tool `clear_history`" in said and "called after two thoughts, takes {}" in said, said
    assert "it empties the history and it drops every branch" in said, said


@pytest.mark.parametrize("change_id", ["box-reworked"])
def test_a_reworked_box_is_said_in_words_with_the_multi_line_thought_apart(
    change_id: str, compared: Compared
) -> None:
    said = _headline(compared[change_id].result(), "render")
    assert "2 narrower than base's" in said and "its header row is padded" in said, said
    assert "the stderr box of a multi-line thought differs" in said and "one row per line" in said, said


@pytest.mark.parametrize(("change_id", "rule"), [
    ("total-thoughts-at-least-one", "head refuses `totalThoughts` below 1"),
    ("branch-id-max-256", "head refuses `branchId` longer than 256 UTF-16 code units"),
])
def test_a_bound_is_found_by_re_testing(change_id: str, rule: str, compared: Compared) -> None:
    said = _headline(compared[change_id].result(), "validation")
    assert rule in said and "re-tested on fresh calls" in said, said
