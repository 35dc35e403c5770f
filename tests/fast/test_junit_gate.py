"""junit.xml agrees with the gate: a departure the baseline accepts, behaving as pinned, passes; an unexpected
departure, a changed one, a stale or unconfirmed baseline entry fail; the totals are the gate's.

Reports are assembled from generated outcomes over real catalog records and generated baselines, then
rendered; the end-to-end counterparts against a real server are in test_junit_cli.py.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.catalog.view import load_catalog_view
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import RunResults, TestOutcome
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.gate.baseline import Baseline, BaselineEntry
from conformance.gate.signatures import RecordSignature
from conformance.report.junit import render_junit
from conformance.report.model import Preflight, Report, RunInfo, WitnessAnswer

CATALOG = load_catalog_view()
RECORDS = ("RTE-2", "RTE-3", "RTE-5", "OBJ-4", "CMP-3", "CMP-5")
"""Observable records of the real catalog; every other record has no test here and is `not run`."""
PINNED = "a" * 64
OTHER = "b" * 64
SIGNATURES = (None, PINNED, OTHER)
TARGET = TargetIdentity(spec="cmd:node fork.js", kind="cmd", command=["node", "fork.js"])
HARNESS = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")

Status = str
BaselineRow = tuple[str, str, str | None]
"""(record, expected verdict, pinned signature or None)."""


def _report(
    statuses: Mapping[str, Status],
    rows: list[BaselineRow] | None,
    observed_signature: str = PINNED,
    preflight_ok: bool = True,
) -> Report:
    tests = [
        TestOutcome(nodeid=f"suite/test_{i}.py::test_{record}", records=[record], status=status,  # type: ignore[arg-type]
                    message="" if status == "passed" else f"{status}: {record}", examples=1)
        for i, (record, status) in enumerate(statuses.items())
    ]
    results = RunResults(target=TARGET, harness=HARNESS, started="t0", finished="t1", tests=tests)
    baseline = None
    if rows is not None:
        baseline = Baseline(project="fork", deviations=[
            BaselineEntry(record=record, reason=f"why {record}", verdict=verdict, signature=signature,  # type: ignore[arg-type]
                          witness=[WitnessAnswer(step="s", answer="pinned")] if signature else [])
            for record, verdict, signature in rows
        ])

    def sign(ids: list[str]) -> dict[str, RecordSignature]:
        now = [WitnessAnswer(step="s", answer="now")]
        return {i: RecordSignature(i, observed_signature, now) for i in ids}

    return assemble_report(
        catalog=CATALOG.records,
        canonical=CATALOG.canonical,
        results=results,
        seen=TargetSeen(TARGET, Preflight(ok=preflight_ok, error=None if preflight_ok else "exited with 3"),
                        {}, "2024-11-05"),
        harness=HARNESS,
        run=RunInfo(started="t0", finished="t1", duration_s=1.0, jobs=1, processes_started=1, calls_made=1,
                    tests=len(tests), rerun="python -m conformance run"),
        generated="t1",
        baseline=baseline,
        baseline_path="baseline.yaml" if baseline is not None else None,
        sign=sign,
    )


def _cases(report: Report) -> dict[str, ET.Element]:
    root = ET.fromstring(render_junit(report))
    return {c.get("name", ""): c for c in root.iter("testcase")}


def _totals(report: Report) -> tuple[int, int]:
    """(failures, errors) over every testsuite of junit.xml, from the suites' own attributes."""
    root = ET.fromstring(render_junit(report))
    suites = root.findall("testsuite")
    return sum(int(s.get("failures", "0")) for s in suites), sum(int(s.get("errors", "0")) for s in suites)


def test_a_departure_the_baseline_accepts_passes_with_the_baselines_reason() -> None:
    report = _report({"RTE-2": "failed", "RTE-3": "passed"}, [("RTE-2", "deviates", PINNED)])
    assert report.gate.passed
    case = _cases(report)["RTE-2"]
    assert case.find("failure") is None and case.find("error") is None and case.find("skipped") is None
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties == {"verdict": "deviates", "baseline": "accepted", "baseline-reason": "why RTE-2"}
    assert _totals(report) == (0, 0)


def test_every_failing_class_of_the_gate_is_a_failure() -> None:
    report = _report(
        {"RTE-2": "failed", "RTE-3": "failed", "RTE-5": "passed", "OBJ-4": "error"},
        [("RTE-2", "deviates", OTHER), ("RTE-5", "deviates", None), ("CMP-5", "deviates", None)],
    )
    gate = report.gate
    assert [e.record for e in gate.changed] == ["RTE-2"]
    assert [e.record for e in gate.unexpected] == ["OBJ-4", "RTE-3"]
    assert [e.record for e in gate.stale] == ["RTE-5"]
    assert [e.record for e in gate.unconfirmed] == ["CMP-5"]
    cases = _cases(report)
    kinds = {name: (child.tag, child.get("type")) for name in ("RTE-2", "RTE-3", "RTE-5", "CMP-5", "OBJ-4")
             for child in cases[name] if child.tag in ("failure", "error")}
    assert kinds == {
        "RTE-2": ("failure", "departure changed"),
        "RTE-3": ("failure", "deviates"),
        "RTE-5": ("failure", "stale baseline entry"),
        "CMP-5": ("failure", "baseline entry unconfirmed"),
        "OBJ-4": ("error", "error"),
    }
    assert "pinned" in (cases["RTE-2"].find("failure").text or "")  # type: ignore[union-attr]
    assert _totals(report) == (4, 1)


def test_a_target_that_would_not_start_fails_as_a_run() -> None:
    report = _report({}, None, preflight_ok=False)
    assert not report.gate.passed
    run = _cases(report)["run"]
    assert run.find("error") is not None and "exited with 3" in run.find("error").get("message", "")  # type: ignore[union-attr]
    assert _totals(report) == (0, 1)


_statuses = st.dictionaries(
    st.sampled_from(RECORDS), st.sampled_from(["passed", "failed", "error", "skipped"])
)
_rows = st.lists(
    st.tuples(st.sampled_from(RECORDS), st.sampled_from(["deviates", "error"]), st.sampled_from(SIGNATURES)),
    unique_by=lambda row: row[0],
    max_size=len(RECORDS),
)


@settings(max_examples=80, deadline=None)
@given(statuses=_statuses, rows=st.none() | _rows, observed=st.sampled_from([PINNED, OTHER]))
def test_junit_totals_are_the_gates(
    statuses: dict[str, Status], rows: list[BaselineRow] | None, observed: str
) -> None:
    report = _report(statuses, rows, observed)
    gate = report.gate
    failures, errors = _totals(report)
    failing_entries = len(gate.unexpected) + len(gate.changed) + len(gate.stale) + len(gate.unconfirmed)
    assert failures + errors == failing_entries
    assert (failures + errors == 0) is gate.passed
    cases = _cases(report)
    for entry in gate.expected:
        case = cases[entry.record]
        assert case.find("failure") is None and case.find("error") is None
        assert {p.get("name"): p.get("value") for p in case.iter("property")}["baseline"] == "accepted"


def test_a_departure_fresh_processes_do_not_confirm_is_seen_once_and_no_failure() -> None:
    """Through `assemble_report` as a run calls it: the witness answers alike on the target and the original,
    the evidence's replay (`evidence`) found no difference at all: reported apart, never a failure; with a
    difference in the replay, the same departure fails as new (gate/pinned.py)."""
    from conformance.report.model import Evidence
    from conformance.report.text import departures_sentence, gate_sentence

    def replayed(no_difference: bool) -> Report:
        same = [WitnessAnswer(step="s", answer="same")]

        def sign(ids: list[str]) -> dict[str, RecordSignature]:
            return {i: RecordSignature(i, PINNED, same) for i in ids}

        def evidence(report: Report) -> Report:
            found = Evidence(reproduced=False, original_spec="npm:0.6.2", no_difference=no_difference,
                             elsewhere=[] if no_difference else ["thoughtHistoryLength"])
            records = [rv.model_copy(update={"evidence": found}) if rv.id == "RTE-5" else rv
                       for rv in report.records]
            return report.model_copy(update={"records": records})

        results = RunResults(target=TARGET, harness=HARNESS, started="t0", finished="t1", tests=[
            TestOutcome(nodeid="suite/test_0.py::test_RTE-5", records=["RTE-5"], status="failed",
                        message="failed: RTE-5", examples=1)])
        return assemble_report(
            catalog=CATALOG.records, canonical=CATALOG.canonical, results=results,
            seen=TargetSeen(TARGET, Preflight(ok=True, error=None), {}, "2024-11-05"), harness=HARNESS,
            run=RunInfo(started="t0", finished="t1", duration_s=1.0, jobs=1, processes_started=1,
                        calls_made=1, tests=1, rerun="python -m conformance run"),
            generated="t1", sign=sign, sign_original=sign, evidence=evidence)

    once = replayed(no_difference=True)
    assert once.gate.passed and not once.gate.unexpected
    assert [e.record for e in once.gate.seen_once] == ["RTE-5"]
    case = _cases(once)["RTE-5"]
    assert case.find("failure") is None and case.find("error") is None
    assert {p.get("name"): p.get("value") for p in case.iter("property")}["gate"] == "seen-once"
    assert "seen once, not confirmed on a fresh process" in gate_sentence(once.gate)
    assert "1 seen once, not confirmed on a fresh process (not gating)" in departures_sentence(once.gate, 1)
    confirmed = replayed(no_difference=False)
    assert not confirmed.gate.passed and [e.record for e in confirmed.gate.unexpected] == ["RTE-5"]
    assert _totals(once) == (0, 0) and _totals(confirmed) == (1, 0)
