"""A /4 baseline entry naming its era (`era: 2025-03-26`) accepts its departure only when the record departed
under that era's client; an entry without one accepts it under any era (today's meaning). A real run:
tests/e2e/test_baseline_eras.py."""

from __future__ import annotations

from typing import Any, get_args

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.records import default_catalog
from conformance.core.eras import ERA_NAMES
from conformance.gate.baseline import (
    BASELINE_FORMAT,
    BaselineEntry,
    BaselineError,
    EraName,
    departed_under,
    evaluate_gate,
    parse_baseline,
)
from conformance.gate.verdicts import alias_map
from conformance.report.model import RecordVerdict, TestRef

CANONICAL = alias_map(default_catalog().records)
eras = st.sampled_from(ERA_NAMES)
statuses = st.sampled_from(["passed", "failed", "error", "skipped"])


def _verdict(tests: list[tuple[str, str]], verdict: Any = "deviates") -> RecordVerdict:
    """SPEC-10 with one test per (era, status), as the suite names them (`[<target>-<era>]`)."""
    refs = [TestRef(nodeid=f"conformance/suite/test_spec_eras.py::test_batches_as_the_revision_says"
                           f"[npm:2026.7.4-{era}]", status=status, examples=1)  # type: ignore[arg-type]
            for era, status in tests]
    return RecordVerdict(id="SPEC-10", kind="spec", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict=verdict, evidence_before="implemented", evidence_after="observed",
                         tests=refs)


def _baseline(era: str | None, *, fmt: str = BASELINE_FORMAT) -> Any:
    entry: dict[str, Any] = {"record": "SPEC-10", "reason": "batches were dropped with the SDK"}
    if era is not None:
        entry["era"] = era
    return parse_baseline(yaml.safe_dump({"format": fmt, "project": "p", "deviations": [entry]}), "b.yaml")


def test_the_eras_a_baseline_may_name_are_the_eras() -> None:
    assert get_args(EraName) == ERA_NAMES


@given(st.lists(st.tuples(eras, statuses), max_size=6))
def test_a_record_departed_under_the_eras_of_its_failed_tests(tests: list[tuple[str, str]]) -> None:
    assert departed_under(_verdict(tests)) == {era for era, status in tests if status in ("failed", "error")}


def test_a_seed_record_departed_under_no_era() -> None:
    ref = TestRef(nodeid="conformance/suite/test_store.py::test_history_grows[npm:2026.7.4]", status="failed",
                  examples=3)
    assert departed_under(_verdict([]).model_copy(update={"tests": [ref]})) == set()


@given(st.lists(st.tuples(eras, statuses), min_size=1, max_size=6), eras)
def test_an_entry_naming_its_era_accepts_a_departure_under_that_era_only(
    tests: list[tuple[str, str]], named: str
) -> None:
    rv = _verdict(tests)
    departed = departed_under(rv)
    gate = evaluate_gate([rv], _baseline(named), baseline_path="b.yaml", canonical=CANONICAL)
    if named in departed:
        assert gate.passed and [e.record for e in gate.expected] == ["SPEC-10"]
    else:
        assert not gate.passed and [e.record for e in gate.unexpected] == ["SPEC-10"]
        assert f"accepts it under {named} only" in gate.unexpected[0].reason
    unnamed = evaluate_gate([rv], _baseline(None), baseline_path="b.yaml", canonical=CANONICAL)
    assert unnamed.passed


def test_spec_10_at_2025_03_26_against_entries_naming_each_era() -> None:
    rv = _verdict([("2024-11-05", "passed"), ("2025-03-26", "failed"), ("2025-11-25", "passed")])
    assert evaluate_gate([rv], _baseline("2025-03-26"), baseline_path="b", canonical=CANONICAL).passed
    assert not evaluate_gate([rv], _baseline("2025-11-25"), baseline_path="b", canonical=CANONICAL).passed


def test_an_entry_naming_its_era_still_goes_stale_when_the_record_holds() -> None:
    rv = _verdict([("2025-03-26", "passed")], verdict="holds")
    gate = evaluate_gate([rv], _baseline("2025-03-26"), baseline_path="b", canonical=CANONICAL)
    assert not gate.passed and [e.record for e in gate.stale] == ["SPEC-10"]


@pytest.mark.parametrize("fmt", ["seqthink-conformance-baseline/2", "seqthink-conformance-baseline/3"])
def test_era_is_a_4_baseline_s_and_older_ones_load_as_before(fmt: str) -> None:
    with pytest.raises(BaselineError, match="`era` is /4's"):
        _baseline("2025-03-26", fmt=fmt)
    assert _baseline(None, fmt=fmt).deviations[0].era is None


def test_a_folded_departure_may_name_its_era_and_keeps_it_when_flattened() -> None:
    entry = BaselineEntry.model_validate({"record": "SPEC-9", "reason": "r", "explains": [
        {"record": "SPEC-10", "era": "2025-03-26"}]})
    assert [(e.record, e.era) for e in entry.flattened()] == [("SPEC-9", None), ("SPEC-10", "2025-03-26")]


def test_an_unknown_era_is_refused() -> None:
    with pytest.raises(BaselineError):
        _baseline("2025-01-01")
