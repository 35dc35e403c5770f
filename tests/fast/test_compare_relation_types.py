"""A relation between two numbered fields is found with numbers, so it explains a refused numeric string only
when the refusing side reads that string as a number (issue 42, PR #3007: its head refuses `branchFromThought`
"1" for its type, and compare said "head refuses `branchFromThought` ≥ `thoughtNumber` (refusing with
“branchFromThought: Expected number, received string”)"). Against the reference's one-mode forks."""

from __future__ import annotations

import shlex
import sys
from typing import Final

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.compare.engine import _with_relations
from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.pair import retested
from conformance.compare.programs import Step, frames, valid
from conformance.core.differences import refusal
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.report.model import Difference
from conformance.targets.specs import Target, resolve_target
from tests.servers import fork_target

REFERENCE: Final = resolve_target("cmd:" + shlex.join([sys.executable, "-m", "reference_server"]))
TYPE_WORDS: Final = "branchFromThought: Expected number, received string"
RULE_WORDS: Final = "branchFromThought must be less than thoughtNumber"


def _fork(change: str) -> Target:
    return fork_target(change)


def _refused(value_class: str, origin: JSON, number: int, words: str) -> Difference:
    args = valid(number, number, thought="a branch", branchFromThought=origin, branchId="alt")
    return Difference(id=f"is_error.branchFromThought.{value_class}.refused-by-b", aspect="is_error",
                      summary="", field="branchFromThought", value_class=value_class, detail="refused by b",
                      a='{"thoughtHistoryLength": 1}', b=f'isError {{"error": "{words}"}}',
                      cause="validation", program=frames((Step(TOOL, args),)))


def _marked(change: str, number: int, past: int, string_words: str) -> list[Difference]:
    """A branchFromThought `past` beyond thoughtNumber `number` refused as a numeric string (in
    `string_words`) and as a number (in the rule's), marked by compare's re-test against fork `change`."""
    ds = [_refused("numeric string", str(number + past), number, string_words),
          _refused("integer", number + past, number, RULE_WORDS)]
    return _with_relations(REFERENCE, _fork(change), ds, 10, lambda _: None)


@given(number=st.integers(1, 40), past=st.integers(0, 40))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_string_refused_for_its_type_is_not_said_as_the_relation(number: int, past: int) -> None:
    string, numeric = _marked("branch-earlier+numbers-typed", number, past, TYPE_WORDS)
    assert numeric.value_class == "relation: `branchFromThought` ≥ `thoughtNumber`", numeric
    assert string.value_class == "numeric string", string
    headline = explain([string], "base", "head", default_known_changes()).headline
    assert "≥" not in headline, headline


@given(number=st.integers(1, 40), past=st.integers(0, 40))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_string_read_as_a_number_and_refused_by_the_relation_is_said_as_it(number: int, past: int) -> None:
    string, numeric = _marked("branch-earlier+numbers-converted", number, past, RULE_WORDS)
    assert numeric.value_class == string.value_class == "relation: `branchFromThought` ≥ `thoughtNumber`", (
        string, numeric)


@given(number=st.integers(1, 40), past=st.integers(0, 40))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_fork_rule_reads_the_argument_as_sent(number: int, past: int) -> None:
    """`branch-earlier` refines the arguments as sent (PR #3007's head): a numeric string converted only by a
    change checked after the rule reaches it a string and passes; converted before, it is the rule's."""
    ask = retested(_fork("numbers-converted+branch-earlier"), _fork("branch-earlier+numbers-converted"), 10)
    past_it = valid(number, number, thought="a branch", branchFromThought=str(number + past), branchId="alt")
    seen = ask([past_it])
    assert seen is not None, "a fork broke off"
    (passed,), (refused,) = seen
    ruled = refusal(refused)
    assert refusal(passed) is None and ruled is not None and ruled.words == RULE_WORDS, (passed, refused)
