"""A check that ends a process's stdin or signals it marks its failure by that kind (`after_the_end`), and the
gate says "not replayed" by the kind the report carries (`ends_a_process`), never by the failure's words; a
report from an older harness, with no mark, is still read by its words (round 16's reread: `_STDIN_END`
gained a literal sentence of RTE-10's opening check)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from conformance.core.results import TestOutcome
from conformance.gate.evidence import unreplayable
from conformance.report.model import RecordVerdict, TestRef
from conformance.suite.contradiction import Contradiction, after_the_end, ended_by, expect
from tests.verdicts import assembled

CHECK = "conformance/suite/test_lifecycle.py::test_end_of_stdin_ends_the_process_quietly"
STDIN_WORDS = "after stdin ended, the process wrote “x” to stdout, where the original writes nothing more"
PLAIN_WORDS = "exit status 1, where the original ends with status 0"
STDIN_SAID = "not replayed: its check ends the process's stdin"
STDOUT_SAID = "not replayed: its check closes the process's stdout"


def _rte10(outcomes: list[TestOutcome]) -> RecordVerdict:
    return assembled("RTE-10", outcomes)


def _failed(message: str, ends: str | None, n: int = 0) -> TestOutcome:
    return TestOutcome(nodeid=f"{CHECK}[{n}]", records=["RTE-10"], status="failed", examples=1,
                       message=message, contradicted=["RTE-10"], ends_a_process=ends)


@given(message=st.sampled_from([STDIN_WORDS, PLAIN_WORDS, "stdin ended before any initialize: exit status 1",
                                "SIGTERM sent: exit status 0"]),
       kind=st.sampled_from(["stdin", "stdout", "SIGUSR2", "SIGTERM", ""]))
def test_the_gate_reads_the_kind_a_failure_carries_not_its_words(message: str, kind: str) -> None:
    """Whatever the words: `stdin` is a stdin ended, a signal's name the signal sent (SIGUSR2 too, which the
    words' pattern never matched), empty a failure a replay may show, even in the words of a stdin ended."""
    said = unreplayable(_rte10([_failed(message, kind)]))
    if kind == "stdin":
        assert said.startswith(STDIN_SAID), said
    elif kind == "stdout":
        assert said.startswith(STDOUT_SAID), said
    elif kind:
        assert said.startswith(f"not replayed: its check sends {kind} to the process"), said
    else:
        assert said == "", said


def test_a_failure_unmarked_beside_a_marked_one_can_be_replayed() -> None:
    """Every failing check must have ended the process for the record to be said not replayed."""
    assert unreplayable(_rte10([_failed(STDIN_WORDS, "stdin"), _failed(STDIN_WORDS, "", 1)])) == ""
    both = unreplayable(_rte10([_failed(PLAIN_WORDS, "stdin"), _failed(PLAIN_WORDS, "SIGHUP", 1)]))
    assert both.startswith(STDIN_SAID), both


@pytest.mark.parametrize(("message", "said"), [
    (STDIN_WORDS, STDIN_SAID),
    ("stdin ended before any initialize: exit status 1", STDIN_SAID),
    ("SIGTERM sent: exit status 0", "not replayed: its check sends SIGTERM to the process"),
    (PLAIN_WORDS, ""),
])
def test_an_older_report_without_the_mark_is_read_by_its_words(message: str, said: str) -> None:
    """A stored report (baselines, kept runs, re-attributed copies) has no `ends_a_process`: its words."""
    ref = TestRef.model_validate({"nodeid": CHECK, "status": "failed", "examples": 1, "message": message})
    assert ref.ends_a_process is None
    rv = _rte10([]).model_copy(update={"tests": [ref]})
    assert unreplayable(rv).startswith(said) and bool(unreplayable(rv)) is bool(said)


def test_a_failure_raised_after_the_end_carries_its_kind_and_one_before_it_none() -> None:
    """What the suite's plugin writes into the outcome (`ended_by` of the check's exception)."""
    with pytest.raises(Contradiction) as after, after_the_end("SIGHUP"):
        expect("RTE-10", False, "SIGHUP sent: exit status 0")
    assert ended_by(after.value) == "SIGHUP"
    with pytest.raises(AssertionError) as before:
        raise AssertionError("stdin ended before any initialize")
    assert ended_by(before.value) == ""
    group = BaseExceptionGroup("two", [ValueError("x"), after.value])
    assert ended_by(group) == "SIGHUP"


@pytest.mark.parametrize("hostile", ["rm -rf /", "SIG", "stdin\n", "SIGTERMINATEDNOW"])
def test_a_kind_out_of_its_shape_is_refused_when_read(hostile: str) -> None:
    """A report is hostile data: only `stdin`, a signal's name or empty is read as a kind."""
    with pytest.raises(ValidationError):
        TestRef(nodeid=CHECK, status="failed", examples=1, ends_a_process=hostile)
