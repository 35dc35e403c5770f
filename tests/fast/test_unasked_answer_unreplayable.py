"""A LOOP-A failure that is an answer under the id null (a parse error answering the line that is not JSON the
check writes, or an invalid-request error answering JSON that is no request) is "not replayable", never "not
reproduced on fresh processes": a replay sends requests only (held-out-multi-16's fork-wire-hygiene answers
a line that is not JSON with -32700)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.results import TestOutcome
from conformance.gate.evidence import unreplayable
from conformance.report.model import RecordVerdict
from tests.verdicts import assembled

CHECK = "conformance/suite/test_lifecycle.py::test_one_response_per_request_and_nothing_else[cmd:fork]"
OTHER = "conformance/suite/test_lifecycle.py::test_a_cancelled_call_is_kept[cmd:fork]"
IDS = st.lists(st.one_of(st.integers(0, 30), st.from_regex(r"[a-z0-9-]{0,9}", fullmatch=True)), min_size=1,
               max_size=8, unique=True)


def _said(ids: list[int | str], nulls: int) -> list[str]:
    return sorted(json.dumps(i) for i in ids) + ["null"] * nulls


def _loop_a(messages: list[str]) -> RecordVerdict:
    return assembled("LOOP-A", [TestOutcome(nodeid=CHECK if i == 0 else OTHER, records=["LOOP-A"],
                                            status="failed", examples=1, message=m, contradicted=[])
                                for i, m in enumerate(messages)])


def _message(ids: list[int | str], nulls: int, code: int) -> str:
    answers = [{"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": "Parse error"}}]
    return (f"responses to the ids {', '.join(_said(ids, nulls))}, where each of "
            f"{', '.join(_said(ids, 0))} gets one: {json.dumps(answers)}")


@given(IDS, st.integers(1, 2), st.sampled_from([-32700, -32600]))
def test_an_answer_under_the_id_null_is_not_replayable(ids: list[int | str], nulls: int, code: int) -> None:
    said = unreplayable(_loop_a([_message(ids, nulls, code)]))
    assert said.startswith("not replayable: "), said
    assert ("no replay sends a line that is not JSON" in said) == (code == -32700), said


@given(IDS)
def test_ids_answered_otherwise_are_replayable(ids: list[int | str]) -> None:
    """Only an answer under the id null: a missing answer, or one beside a failure a replay can show, is
    replayed."""
    missing = (f"responses to the ids {', '.join(_said(ids[1:], 0))}, where each of "
               f"{', '.join(_said(ids, 0))} gets one: []")
    assert unreplayable(_loop_a([missing])) == ""
    beside = "LOOP-A contradicted: thoughtHistoryLength 16 on the call after a cancelled one, 15 before it"
    assert unreplayable(_loop_a([_message(ids, 1, -32700), beside])) == ""
