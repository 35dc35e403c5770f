"""A failure naming the record it contradicts: the exception, how the plugin finds it, and what a verdict
makes of it (conformance/suite/contradiction.py, gate/verdicts.py)."""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from conformance.catalog.records import UnknownRecordError
from conformance.catalog.view import load_catalog_view
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.core.results import RunResults, TestOutcome
from conformance.drivers.wire import Exchange
from conformance.gate.verdicts import judge
from conformance.suite.answers import accepted, expect_one_more
from conformance.suite.contradiction import Contradiction, contradicted, expect, first_difference


def test_expect_names_the_record_only_when_the_check_fails() -> None:
    expect("RTE-5", True, "never raised")
    with pytest.raises(Contradiction) as raised:
        expect("RTE-5", False, "count 3 became 3")
    assert raised.value.record == "RTE-5"
    assert str(raised.value) == "RTE-5 contradicted: count 3 became 3"
    assert isinstance(raised.value, AssertionError), "a contradiction is a failure like any other"


def _probe_call() -> Exchange:
    arguments: dict[str, JSON] = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1,
                                  "nextThoughtNeeded": True}
    request: dict[str, JSON] = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                "params": {"name": TOOL, "arguments": arguments}}
    return Exchange("tools/call", request, {"jsonrpc": "2.0", "id": 1, "result": {}}, b"", 0.0, 0.0)


def test_a_count_that_did_not_grow_is_said_as_staying_not_as_becoming() -> None:
    """nalyk/sequentialthinking caps its history at 1000: the check said "count 1000 became 1000"."""
    with pytest.raises(Contradiction) as raised:
        expect_one_more(1000, 1000, "the answer", call=_probe_call())
    assert str(raised.value) == (
        "OBJ-2 contradicted: an accepted call left thoughtHistoryLength at 1000, where each accepted call "
        'adds one, on a call with {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, '
        '"nextThoughtNeeded": true}: the answer')
    with pytest.raises(Contradiction) as raised:
        expect_one_more(3, 5, "the answer", call=_probe_call())
    assert "took thoughtHistoryLength from 3 to 5, not to 4" in str(raised.value)


def test_two_answers_that_differ_name_the_field_that_differs() -> None:
    """nalyk/sequentialthinking stamps every error answer with the time: LOOP-B's line quoted answer 3 whole
    and cut it before the timestamp, the one thing that differed."""
    def answer(stamp: str) -> dict[str, JSON]:
        text = json.dumps({"error": "Invalid thoughtNumber: must be a positive integer", "status": "failed",
                           "timestamp": stamp}, indent=2)
        return {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": text}],
                                                      "isError": True}}
    ok = {"jsonrpc": "2.0", "id": 2, "result": {"content": []}}
    one, two = answer("2026-12-05T17:45:19.493Z"), answer("2026-12-05T17:45:19.611Z")
    said = first_difference([ok, one], [ok, two])
    assert said == ("answer 2 differs in result.content[0].text → timestamp: “2026-12-05T17:45:19.493Z”, "
                    "then “2026-12-05T17:45:19.611Z”"), said
    assert first_difference(["a"], ["b"], "stderr") == 'stderr 1 is "a", then "b"'


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


def _answered(arguments: dict[str, JSON], status: dict[str, JSON]) -> Exchange:
    request: JSON = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": TOOL, "arguments": arguments}}
    result: JSON = {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]}
    response: dict[str, JSON] = {"jsonrpc": "2.0", "id": 1, "result": result}
    return Exchange(method="tools/call", request=request, response=response, stderr=b"", t_sent=0.0,
                    t_received=0.0)


@given(
    number=st.one_of(st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1),
                     st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15)),
    flag=st.booleans(),
    echoed_number=st.one_of(st.none(), st.integers(), st.floats(allow_nan=False, allow_infinity=False)),
    echoed_flag=st.one_of(st.none(), st.booleans()),
)
def test_an_answer_changing_what_it_echoes_contradicts_obj_14(
    number: int | float, flag: bool, echoed_number: int | float | None, echoed_flag: bool | None
) -> None:
    """An accepted answer whose thoughtNumber or nextThoughtNeeded is not the value sent names OBJ-14 (its
    statement: they echo the request), whichever test reads it; an echo as sent passes."""
    shown_number = number if echoed_number is None else echoed_number
    shown_flag = flag if echoed_flag is None else echoed_flag
    raised_total = number if number > 1 else 1  # RTE-4's raise, as the original answers it
    status: dict[str, JSON] = {"thoughtNumber": shown_number, "totalThoughts": raised_total,
                               "nextThoughtNeeded": shown_flag, "branches": [], "thoughtHistoryLength": 1}
    exchange = _answered({"thought": "Is it?", "thoughtNumber": number, "totalThoughts": 1,
                          "nextThoughtNeeded": flag}, status)
    if shown_number == number and shown_flag is flag:
        assert accepted(exchange)["nextThoughtNeeded"] is flag
        return
    with pytest.raises(Contradiction) as raised:
        accepted(exchange)
    assert raised.value.record == "OBJ-14"


@given(number=st.integers(min_value=1, max_value=50), total=st.integers(min_value=1, max_value=50),
       answered=st.integers(min_value=-5, max_value=60))
def test_an_answered_total_other_than_the_raise_names_rte_4_or_its_amendment(
    number: int, total: int, answered: int
) -> None:
    """Read from an answer alone, a total below max(n, m) breaks RTE-4's raise; one above it needs a control
    call to tell whether the two numbers gave it (RTE-4: a rounding, a raise past n) or something else did
    (RTE-4/a1), so the answer alone names nothing; max(n, m) passes."""
    status: dict[str, JSON] = {"thoughtNumber": number, "totalThoughts": answered, "nextThoughtNeeded": True,
                               "branches": [], "thoughtHistoryLength": 1}
    exchange = _answered({"thought": "t", "thoughtNumber": number, "totalThoughts": total,
                          "nextThoughtNeeded": True}, status)
    wanted = max(number, total)
    if answered >= wanted:
        assert accepted(exchange)["totalThoughts"] == answered
        return
    with pytest.raises(Contradiction) as raised:
        accepted(exchange)
    assert raised.value.record == "RTE-4"


def test_values_sent_out_of_type_are_not_read_as_echoes() -> None:
    """A flag sent as a string, a number sent as a string or too large for a double: what comes back is
    another record's business (the guards, coercion), not an echo to compare."""
    status: dict[str, JSON] = {"thoughtNumber": 3, "totalThoughts": 3, "nextThoughtNeeded": True,
                               "branches": [], "thoughtHistoryLength": 1}
    for number, flag in (("3", "yes"), (2**60 + 1, "true")):
        exchange = _answered({"thought": "t", "thoughtNumber": number, "totalThoughts": 3,
                              "nextThoughtNeeded": flag}, status)
        assert accepted(exchange)["thoughtNumber"] == 3


@given(
    head=st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="\\'"),
                 min_size=120, max_size=300),
    one=st.text(string.ascii_letters, min_size=1, max_size=8),
    two=st.text(string.ascii_letters, min_size=1, max_size=8),
)
def test_two_stderrs_are_said_by_the_words_that_differ_as_text(head: str, one: str, two: str) -> None:
    """Two processes' stderr parting after a long shared start (a logger echoing each request in French,
    V-labs/Sequential-Thinking-MCP) is said by where they part, decoded: no `b'…'` repr, no escaped accent."""
    assume(one != two)
    first, second = f"{head} é {one} end\n".encode(), f"{head} é {two} end\n".encode()
    said = first_difference([b"same", first], [b"same", second], "stderr")
    assert said.startswith("stderr 2 reads ") and "b'" not in said and "\\x" not in said, said
    assert one in said and two in said, said
