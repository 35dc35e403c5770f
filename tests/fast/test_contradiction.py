"""A failure naming the record it contradicts: the exception, how the plugin finds it, and what a verdict
makes of it (conformance/suite/contradiction.py, gate/verdicts.py)."""

from __future__ import annotations

import pytest

from conformance.catalog.records import UnknownRecordError
from conformance.catalog.view import load_catalog_view
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import RunResults, TestOutcome
from conformance.gate.verdicts import judge
from conformance.suite.contradiction import Contradiction, contradicted, expect


def test_expect_names_the_record_only_when_the_check_fails() -> None:
    expect("RTE-5", True, "never raised")
    with pytest.raises(Contradiction) as raised:
        expect("RTE-5", False, "count 3 became 3")
    assert raised.value.record == "RTE-5"
    assert str(raised.value) == "RTE-5 contradicted: count 3 became 3"
    assert isinstance(raised.value, AssertionError), "a contradiction is a failure like any other"


def test_a_message_given_as_a_callable_is_made_only_when_the_check_fails() -> None:
    made: list[str] = []

    def message() -> str:
        made.append("made")
        return "count 3 became 3"

    expect("RTE-5", True, message)
    assert made == []
    with pytest.raises(Contradiction) as raised:
        expect("RTE-5", False, message)
    assert str(raised.value) == "RTE-5 contradicted: count 3 became 3"
    assert made == ["made"]


def test_an_unknown_record_is_refused_where_it_is_named() -> None:
    with pytest.raises(UnknownRecordError):
        Contradiction("RTE-99", "no such record")


def test_contradicted_records_are_found_inside_exception_groups() -> None:
    group = ExceptionGroup("two failures", [
        Contradiction("CMP-5", "frame drawn in ASCII"),
        ValueError("unrelated"),
        ExceptionGroup("nested", [Contradiction("RTE-5", "count"), Contradiction("CMP-5", "again")]),
    ])
    assert contradicted(group) == ["CMP-5", "RTE-5"]
    assert contradicted(AssertionError("plain")) == []
    assert contradicted(None) == []


def test_a_record_a_failure_names_departs_and_lists_that_test() -> None:
    """The test evidences OBJ-10 and relies on RTE-5; it saw RTE-5 broken. Both depart; RTE-5's own
    tests passed, and its row lists the test that contradicted it."""
    tests = [
        TestOutcome(nodeid="t::test_optional", records=["OBJ-10"], relies=["RTE-5"], status="failed",
                    message="RTE-5 contradicted: count 3 became 3", contradicted=["RTE-5"], examples=1),
        TestOutcome(nodeid="t::test_count", records=["RTE-5"], status="passed", examples=4),
    ]
    results = RunResults(
        target=TargetIdentity(spec="cmd:x", kind="cmd", command=["x"]),
        harness=HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3"),
        started="", finished="", tests=tests,
    )
    verdicts = {rv.id: rv for rv in judge(load_catalog_view().records, results)}
    assert verdicts["OBJ-10"].verdict == "deviates"
    assert verdicts["RTE-5"].verdict == "deviates"
    assert [t.nodeid for t in verdicts["RTE-5"].tests] == ["t::test_optional", "t::test_count"]
    assert verdicts["RTE-5"].tests[0].contradicted == ["RTE-5"]
    assert verdicts["RTE-5"].reason == "RTE-5 contradicted: count 3 became 3"
