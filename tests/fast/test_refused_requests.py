"""A tools/list refused where the original answers it is said in the server's words, by RTE-1's check and
in its cause's headline (issue 42, held-out-multi-12's paged-history fork: "Invalid cursor: witness" was
named under RTE-1 and said in no sentence), on a real process (tests/servers/reference_fork.py
`cursor-refused`)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.core.refused_requests import refusals_said, refused_request
from conformance.gate.refusals_said import SUMMARY_MAX, with_refusals_said
from conformance.report.model import RecordVerdict, RootCause, TestRef
from conformance.suite import test_tool_spec
from conformance.suite.contradiction import Contradiction
from conformance.suite.session import ServerSession
from tests.servers import fork_session

SAID = refused_request("tools/list", {"cursor": "next"}, "MCP error -32602: Invalid cursor: next",
                       "lists its tool")


@given(params=st.dictionaries(st.text(max_size=20), st.one_of(st.text(max_size=300), st.integers()),
                              max_size=3),
       message=st.text(max_size=600))
def test_any_refusal_is_said_in_one_bounded_sentence_read_back(params: dict[str, Any], message: str) -> None:
    """Hostile words: the sentence stays one bounded line and reads back whole from inside a failure."""
    sentence = refused_request("tools/list", params, message, "lists its tool")
    assert "\n" not in sentence and len(sentence) < 420, sentence
    assert refusals_said([f"RTE-1 contradicted: {sentence}"]) == [sentence]


def _record(message: str) -> RecordVerdict:
    failed = TestRef(nodeid="conformance/suite/test_tool_spec.py::x", status="failed", examples=1,
                     message=message, contradicted=["RTE-1"])
    return RecordVerdict.model_construct(id="RTE-1", tests=[failed])


def test_the_cause_headline_says_the_refusal_once() -> None:
    cause = RootCause(id="RTE-1", records=["RTE-1"], summary="RTE-1 departs — result.tools: 2 here",
                      example=[])
    (said,) = with_refusals_said([cause], [_record(f"RTE-1 contradicted: {SAID}")])
    assert said.summary == f"RTE-1 departs — result.tools: 2 here; {SAID}"
    assert with_refusals_said([said], [_record(SAID)]) == [said]
    assert with_refusals_said([cause], [_record("RTE-1 contradicted: tools/list serves 2 tools")]) == [cause]
    long = cause.model_copy(update={"summary": "RTE-1 departs — " + "x" * 500})
    (cut,) = with_refusals_said([long], [_record(SAID)])
    assert cut.summary.endswith(SAID) and len(cut.summary) <= SUMMARY_MAX


@pytest.fixture
def forked() -> Any:
    with fork_session("cursor-refused") as session:
        yield session


def test_a_tools_list_refused_for_a_cursor_is_said_in_its_words(forked: ServerSession) -> None:
    with pytest.raises(Contradiction) as raised:
        test_tool_spec.test_tools_list_is_static_and_reaches_a_host(forked, None)  # type: ignore[arg-type]
    assert raised.value.record == "RTE-1", raised.value
    assert refusals_said([str(raised.value)]) == [SAID], raised.value
