"""A spec departure's behaviour signature: its era and the answers its check reads, met again on a fresh
process of a real server (tests/servers/negotiates.py), the eras read from the run's failed spec tests."""

from __future__ import annotations

import json
import shlex
from functools import partial
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.calls.meetings import OFFERS
from conformance.catalog.spec_records import default_spec_catalog
from conformance.core.eras import ERA_NAMES, REVISIONS, era_of_test
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import RunResults, TestOutcome
from conformance.gate.spec_signatures import departing_eras, spec_signatures
from conformance.targets.specs import resolve_target
from tests.servers import command
from tests.side_by_side import side_by_side

TARGET = TargetIdentity(spec="cmd:node fork.js", kind="cmd", command=["node", "fork.js"])
HARNESS = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")
SPEC_IDS = [record.id for record in default_spec_catalog().records]


def _server(table: dict[str, str]) -> Any:
    return resolve_target("cmd:" + shlex.join(command("negotiates", json.dumps(table))))


def test_every_spec_record_reads_some_answers() -> None:
    assert all(record.reads for record in default_spec_catalog().records)


@given(st.sampled_from(ERA_NAMES), st.sampled_from(["npm:2026.8.31", "reference", "cmd:a-b [x]-y"]))
def test_the_era_is_the_test_ids_last_parameter(era: str, spec: str) -> None:
    assert era_of_test(f"conformance/suite/test_spec_eras.py::test_x[{spec}-{era}]") == era
    assert era_of_test(f"conformance/suite/test_spec_eras.py::test_x[{spec}]") is None


@given(st.lists(st.tuples(st.sampled_from([*SPEC_IDS, "RTE-1"]), st.sampled_from(ERA_NAMES),
                          st.sampled_from(["passed", "failed", "skipped", "error"])), max_size=12))
def test_departing_eras_are_those_of_failed_spec_tests(runs: list[tuple[str, str, str]]) -> None:
    tests = [
        TestOutcome(nodeid=f"t.py::test_{n}[reference-{era}]", records=[record], status=status)  # type: ignore[arg-type]
        for n, (record, era, status) in enumerate(runs)
    ]
    results = RunResults(target=TARGET, harness=HARNESS, started="t0", finished="t1", tests=tests)
    expected: dict[str, set[str]] = {}
    for record, era, status in runs:
        if record.startswith("SPEC-") and status in ("failed", "error"):
            expected.setdefault(record, set()).add(era)
    found = departing_eras(results)
    assert {record: set(eras) for record, eras in found.items()} == expected
    assert all(eras == sorted(eras, key=ERA_NAMES.index) for eras in found.values())


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(OFFERS), st.sampled_from([*REVISIONS, "1999-01-01"]), min_size=1),
       st.sampled_from(["2024-11-05", "2025-06-18"]))
def test_a_spec_signature_is_its_eras_answers_and_the_same_on_every_meeting(
    table: dict[str, str], era: str
) -> None:
    table = {"*": "2024-11-05", **table}
    future = "2099-12-31"
    changed = {**table, future: "2024-11-05" if table.get(future, table["*"]) == future else future}
    # Three meetings on fresh processes, each waiting on its own server: made side by side.
    first, again, other = side_by_side(
        partial(spec_signatures, _server(table), {"SPEC-1": [era]}, ["SPEC-1", "RTE-1"], timeout=20),
        partial(spec_signatures, _server(table), {"SPEC-1": [era]}, ["SPEC-1"], timeout=20),
        partial(spec_signatures, _server(changed), {"SPEC-1": [era]}, ["SPEC-1"], timeout=20),
    )
    assert set(first) == {"SPEC-1"} and first["SPEC-1"].signature == again["SPEC-1"].signature
    assert [w.step for w in first["SPEC-1"].witness] == [f"{era} initialize", f"{era} offers"]
    assert other["SPEC-1"].signature != first["SPEC-1"].signature


def test_a_record_that_departed_in_no_era_is_not_signed() -> None:
    assert spec_signatures(_server({"*": "2024-11-05"}), {}, ["SPEC-1"], timeout=20) == {}
