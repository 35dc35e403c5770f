"""A refusal that depends on two fields said as the rule between them, found by varying one field while the
other is held (issue 42, held-out-multi-12's strict-pointers: "numbers beyond 2^53 for `thoughtNumber`" for a
thoughtNumber more than ten times totalThoughts; the revise-and-branch rule said as a check on `isRevision`
alone). Against the reference's one-mode forks and `tests/servers/bounded.py`'s numbered rules."""

from __future__ import annotations

import shlex
import sys
from functools import partial
from typing import Final

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.compare.engine import _with_pair_rules
from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.pair import retested
from conformance.compare.programs import Step, frames, valid
from conformance.compare.retests import with_retests
from conformance.compare.two_fields import PairRule, find_both_set, find_conditional, find_ratio
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.report.model import Difference
from conformance.targets.specs import Target, resolve_target
from tests.servers import command, fork_target
from tests.side_by_side import side_by_side

REFERENCE: Final = resolve_target("cmd:" + shlex.join([sys.executable, "-m", "reference_server"]))
REVISING_BRANCH: Final[dict[str, JSON]] = valid(5, 5, thought="a revision on a branch", more=True,
                                                isRevision=True, revisesThought=2, branchFromThought=1,
                                                branchId="zeta")
"""The opening's revision on a branch, the call the search found strict-pointers refusing."""


def _fork(change: str) -> Target:
    return fork_target(change)


def _bounded(*rules: str) -> Target:
    return resolve_target("cmd:" + shlex.join(command("bounded", *rules)))


def _difference(aspect: str, field: str, value_class: str, detail: str, args: dict[str, JSON], b: str
                ) -> Difference:
    return Difference(id=f"{aspect}.{field}.{value_class}.x", aspect=aspect, summary="", field=field,
                      value_class=value_class, detail=detail, a='{"thoughtHistoryLength": 1}', b=b,
                      cause="validation", program=frames((Step(TOOL, args),)))


def _headline(ds: list[Difference]) -> str:
    return explain(ds, "base", "head", default_known_changes()).headline


def test_a_ratio_refused_with_a_protocol_error_is_said_as_the_rule_not_the_value_class() -> None:
    """The search's witness was a thoughtNumber beyond 2^53; the rule is thoughtNumber > 10 × totalThoughts,
    refused in another form (a JSON-RPC error) or as a tool error alike."""
    huge = valid(9007199254740994, 1)
    runaway = "thoughtNumber 9007199254740994 is more than ten times totalThoughts 1"
    as_error = _difference("error_class", "thoughtNumber", "number beyond 2^53",
                           "tool result vs protocol error", huge,
                           f'protocol error: {{"code": -32000, "message": "{runaway}"}}')
    said = "thoughtNumber 40 is more than ten times totalThoughts 3"
    as_tool_error = _difference("is_error", "thoughtNumber", "integer", "refused by b", valid(40, 3),
                                f'isError {{"error": "{said}"}}')
    fork = _fork("runaway-ratio")
    rule, marked = side_by_side(
        partial(find_ratio, REFERENCE, fork, "thoughtNumber", "b", huge, 10),
        partial(_with_pair_rules, REFERENCE, fork, [as_error, as_tool_error], 10, lambda _: None))
    assert isinstance(rule, PairRule) and rule.rule == "`thoughtNumber` > 10 × `totalThoughts`", rule
    assert rule.breaks(huge) and rule.breaks(valid(21, 2)) and not rule.breaks(valid(20, 2))
    assert isinstance(marked, list) and all(d.value_class == rule.value_class for d in marked), marked
    headline = _headline(marked)
    assert "head refuses `thoughtNumber` > 10 × `totalThoughts` with a protocol error" in headline, headline
    assert "21 with `totalThoughts` 2 refused, 20 with 2 accepted" in headline, headline
    assert "2^53" not in headline, headline


def test_a_thought_both_revising_and_branching_is_said_as_a_rule_between_two_fields() -> None:
    """Refused naming `isRevision`: said as both fields set, never as "base does not check `isRevision`"."""
    refused = _difference("is_error", "isRevision", "boolean", "refused by b", REVISING_BRANCH,
                          'isError {"error": "Invalid isRevision: a thought cannot both revise and branch"}')
    fork = _fork("revise-or-branch")
    marked = _with_pair_rules(REFERENCE, fork, [refused], 10, lambda _: None)
    assert marked[0].value_class.startswith("relation: `isRevision` and `branchFromThought` both set"), marked
    marked = with_retests(marked, retested(REFERENCE, fork, 10), "base", "head", lambda _: None)
    headline = _headline(marked)
    assert "head refuses `isRevision` and `branchFromThought` both set" in headline, headline
    assert "without `branchFromThought` accepted, without `isRevision` accepted" in headline, headline
    assert "does not check" not in headline, headline


def test_a_threshold_on_one_fields_own_value_is_no_rule_between_two() -> None:
    """A totalThoughts refused below 3 whatever thoughtNumber is: the threshold stays put as the other field
    moves, so no relation is claimed (a bound on the field's own value says it)."""
    assert find_ratio(_bounded(), _bounded("least-total=3"), "totalThoughts", "b", valid(1, 2), 10) is None


def test_one_field_alone_refused_is_no_both_set_rule() -> None:
    """A refusal that does not go away when the other field is left out (here: any truthy `isRevision`) is
    not the two fields together."""
    call = valid(3, 3, branchFromThought=1, branchId="b", isRevision=True, revisesThought=1)
    assert find_both_set(_bounded(), _bounded("not-both=isRevision,isRevision"), "isRevision", "b", call, "",
                         10) is None


@given(k=st.integers(2, 40))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_ratio_or_offset_between_the_numbered_fields_is_found_exactly(k: int) -> None:
    """`thoughtNumber` > K × `totalThoughts` and `thoughtNumber` > `totalThoughts` + K are each found as
    such, with the calls at the edge, whatever K is."""
    ratio, offset = side_by_side(
        partial(find_ratio, _bounded(), _bounded(f"ratio={k}"), "thoughtNumber", "b", valid(10**6, 1), 10),
        partial(find_ratio, _bounded(), _bounded(f"offset={k}"), "thoughtNumber", "b", valid(10**6, 1), 10))
    assert isinstance(ratio, PairRule) and ratio.rule == f"`thoughtNumber` > {k} × `totalThoughts`", ratio
    assert f"{2 * k + 1} with `totalThoughts` 2 refused, {2 * k} with 2 accepted" in ratio.evidence
    assert isinstance(offset, PairRule) and offset.rule == f"`thoughtNumber` > `totalThoughts` + {k}", offset
    assert offset.breaks(valid(k + 3, 2)) and not offset.breaks(valid(k + 2, 2))


def test_a_value_refused_only_below_the_total_is_said_with_the_order_that_refuses_it() -> None:
    """held-out-multi-10's plan-keeper: `nextThoughtNeeded` false refused while thoughtNumber is below
    totalThoughts read as "accepts booleans for `nextThoughtNeeded` that head refuses"."""
    call = valid(-1, 1)
    words = "Invalid nextThoughtNeeded: a thought before the last cannot end the chain"
    refused = _difference("is_error", "nextThoughtNeeded", "boolean", "refused by b", call,
                          f'isError {{"error": "{words}"}}')
    fork = _fork("early-final-refused")
    marked = _with_pair_rules(REFERENCE, fork, [refused], 10, lambda _: None)
    headline = _headline(marked)
    rule = "head refuses `nextThoughtNeeded` false when `thoughtNumber` < `totalThoughts`"
    assert rule in headline, headline
    assert ("false with `thoughtNumber` 2 and `totalThoughts` 3 refused, with 3 and 3 accepted; true with 2 "
            "and 3 accepted") in headline, headline
    assert "accepts booleans" not in headline, headline


def test_a_value_refused_whatever_the_numbers_is_no_order() -> None:
    """A thought too short is refused at every thought number: no order between the numbered fields."""
    fork = _fork("short-refused")
    rule = find_conditional(REFERENCE, fork, "thought", "b", valid(thought="ab"), "", 10)
    assert rule is None, rule


def test_a_field_refused_beside_its_companion_given_otherwise_names_the_companions_value() -> None:
    """held-out-multi-12's strict-pointers refuses `revisesThought` unless `isRevision` is true: beside
    `isRevision` "true" it read "base does not check `revisesThought`" (its `{}` refused for want of a true
    `isRevision`, not for its own value)."""
    words = "Invalid revisesThought: only allowed when isRevision is true"
    refused = _difference("is_error", "revisesThought", "numeric string", "refused by b",
                          valid(isRevision="true", revisesThought="1"), f'isError {{"error": "{words}"}}')
    fork = _fork("revises-needs-true")
    marked = with_retests([refused], retested(REFERENCE, fork, 10), "base", "head", lambda _: None)
    headline = _headline(marked)
    assert "head refuses `revisesThought` without `isRevision` true" in headline, headline
    assert "does not check" not in headline, headline


def test_an_order_between_two_numbered_fields_is_said_without_an_offset() -> None:
    """A branch from thought n refused at thought n or earlier: "≥ `thoughtNumber`", not "> `thoughtNumber` −
    1"."""
    order = find_ratio(_bounded(), _bounded("branch-before"), "branchFromThought", "b",
                       valid(3, 3, branchFromThought=5, branchId="b"), 10)
    assert isinstance(order, PairRule) and order.rule == "`branchFromThought` ≥ `thoughtNumber`", order
