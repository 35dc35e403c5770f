"""compare's era pass on real releases: the revision each settles on per era's client, and a difference only
the eras that read `structuredContent` see (a copy of 2026.8.31 whose structuredContent counts one thought
more than its text: tests/modified_servers, `structured-one-more-thought`)."""

from __future__ import annotations

from pathlib import Path

from conformance.compare import run_comparison
from conformance.compare.eras import era_pass
from conformance.targets.specs import resolve_target
from tests.modified_servers.servers import load_modifications, materialize, target_spec


def test_a_structured_content_one_thought_ahead_is_seen_from_2025_06_18_on(tmp_path: Path) -> None:
    """The era pass meets both before any search, and the search's client reads the text alone: no search
    (0 s) is needed to see it."""
    modification = {m.id: m for m in load_modifications()}["structured-one-more-thought"]
    head = materialize(modification, tmp_path / "head")
    outcome = run_comparison("npm:2026.8.31", target_spec(head), seed=3, budget_s=0)
    by_id = {d.id: d for d in outcome.comparison.differences}
    found = by_id.get("era.answer.structuredContent.changed")
    assert found is not None, sorted(by_id)
    assert found.eras == ["2025-06-18", "2025-11-25", "2026-07-28"]
    assert found.summary.startswith("seen only by 2025-06-18, 2025-11-25, 2026-07-28 clients"), found.summary
    said = (found.a, found.b)
    assert '"thoughtHistoryLength": 2' in found.b and '"thoughtHistoryLength": 1' in found.a, said
    assert found.cause == "structured-output"
    assert [(s.era, s.a, s.b) for s in outcome.comparison.eras] == [
        *((r, r, r) for r in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")),
        ("2026-07-28", None, None)]


def test_2025_11_25_accepts_the_revisions_2025_7_1_answers_with_2024_11_05() -> None:
    done = era_pass(resolve_target("npm:2025.7.1"), resolve_target("npm:2025.11.25"), timeout=10)
    assert [(s.era, s.a, s.b) for s in done.settled] == [
        ("2024-11-05", "2024-11-05", "2024-11-05"), ("2025-03-26", "2024-11-05", "2025-03-26"),
        ("2025-06-18", "2024-11-05", "2025-06-18"), ("2025-11-25", "2024-11-05", "2025-11-25"),
        ("2026-07-28", None, None)]
    by_signature = {f.found.signature: f for f in done.found}
    assert by_signature["protocol_version.protocolVersion.changed"].eras == (
        "2025-03-26", "2025-06-18", "2025-11-25")
    assert by_signature["answer.structuredContent.added"].eras == ("2025-06-18", "2025-11-25", "2026-07-28")
