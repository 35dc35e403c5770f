"""Two refusals re-tested before they are explained (issue 42), against real ordered servers over stdio
(`tests/servers/ordered.py`): "validated in another order" only when each side refuses the other's field, a
field one side lets pass said so, a field one side never checks, a field refused without its companion, a rule
between numbered fields found at thought 3 of 3; and `run`'s evidence says the very sentence `compare`
says."""

from __future__ import annotations

import json
import shlex
from functools import partial

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.pair import Retests, retested
from conformance.compare.programs import Step, frames, valid
from conformance.compare.retests import with_retests
from conformance.core.differences import refusal, refusal_in_text, refusals_compared
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.core.retest import (
    Retested,
    companion_retested,
    order_retested,
    refusals_retested,
    rule_retested,
    said,
    unchecked_retested,
)
from conformance.gate.evidence import _difference_key, _family, _Replays, _retested, _tells, refused_field
from conformance.report.model import Difference, Evidence
from conformance.targets.specs import Target, resolve_target
from tests.servers import command
from tests.side_by_side import side_by_side

TIMEOUT = 30.0
REQUIRED = ("thought", "thoughtNumber", "totalThoughts", "nextThoughtNeeded")


def _server(*options: str) -> Target:
    return resolve_target("cmd:" + shlex.join(command("ordered", *options)))


def _answers(a: Target, b: Target, call: dict[str, JSON]) -> tuple[JSON, JSON]:
    answered = retested(a, b, TIMEOUT)([call])
    assert answered is not None
    return answered[0][0], answered[1][0]


def _refusals(a: Target, b: Target, call: dict[str, JSON]) -> tuple[object, object]:
    ra, rb = (refusal(x) for x in _answers(a, b, call))
    assert ra is not None and rb is not None, (ra, rb)
    return ra, rb


def test_validation_order_only_when_each_side_refuses_the_others_field() -> None:
    a, b = _server(), _server("order=nextThoughtNeeded,thought,thoughtNumber,totalThoughts")
    call = valid(thoughtNumber="5", nextThoughtNeeded="yes")
    ra, rb = _refusals(a, b, call)
    ask = retested(a, b, TIMEOUT)
    found = order_retested(call, ra, rb, ask, "base", "head")  # type: ignore[arg-type]
    assert found is not None and found.kind == "order", found
    assert "validated in another order" in found.conclusion
    assert ask.calls == 2 and ask.pairs == 1, (ask.calls, ask.pairs)


def test_a_side_converting_one_field_and_refusing_the_next_is_no_rewording() -> None:
    a, b = _server(), _server("converts=thoughtNumber")
    call = valid(thoughtNumber="5", nextThoughtNeeded="yes")
    ra, rb = _refusals(a, b, call)
    found = order_retested(call, ra, rb, retested(a, b, TIMEOUT), "base", "head")  # type: ignore[arg-type]
    assert found is not None and found.kind == "lets-pass", found
    assert found.conclusion.startswith(
        "head lets `thoughtNumber` given as “5” pass where base refuses it, and refuses `nextThoughtNeeded` "
        "next: no refusal is re-worded"), found
    assert "another order" not in found.conclusion


def test_each_side_letting_the_others_field_pass() -> None:
    a, b = _server("unchecked=branchId"), _server("converts=thoughtNumber")
    call = valid(thoughtNumber="5", branchFromThought=1, branchId=7)
    ra, rb = _refusals(a, b, call)
    found = order_retested(call, ra, rb, retested(a, b, TIMEOUT), "base", "head")  # type: ignore[arg-type]
    assert found is not None and found.kind == "both-let-pass", found
    assert ("base refuses `thoughtNumber` given as “5”, which head lets pass, and head refuses `branchId` "
            "given as `7`, which base lets pass") in found.conclusion


def test_a_rule_between_numbered_fields_is_found_at_thought_3_of_3() -> None:
    a, b = _server("crash-label"), _server("crash-label", "branch-before")
    call = valid(thoughtNumber=1, totalThoughts=1, branchFromThought=1, branchId="constructor")
    ra, rb = _refusals(a, b, call)
    found = refusals_retested(call, ra, rb, retested(a, b, TIMEOUT), "base", "head")  # type: ignore[arg-type]
    assert found is not None and found.kind == "rule", found
    assert found.conclusion.startswith(
        "head refuses first by a rule between numbered fields (“branchFromThought must be less than "
        "thoughtNumber”) where base answers “this.branches")
    assert "with `thoughtNumber` 3, `totalThoughts` 3 head answers as base does" in found.conclusion


def test_a_crash_a_thought_number_avoids_is_no_rule_between_numbered_fields() -> None:
    """A side crashing at thought 1 ("Cannot read properties of undefined") answers as the other at 3 of 3:
    that is a crash the value avoided, not a rule it states (bartoszkula-ts' RTE-3 headline had said "refuses
    first by a rule between numbered fields")."""
    a, b = _server(), _server("crash-at-first")
    call = valid(thought=7, thoughtNumber=1, totalThoughts=1)
    ra, rb = _refusals(a, b, call)
    assert "Cannot read properties" in rb.words  # type: ignore[attr-defined]
    assert rule_retested(call, ra, rb, retested(a, b, TIMEOUT), "base", "head") is None  # type: ignore[arg-type]


def test_two_wordings_of_one_refusal_are_not_explained_away() -> None:
    """Both sides refuse the same field at every thought: no re-test finding, the re-wording stands."""
    a, b = _server(), _server("prefix=Error: ")
    call = valid(thought=7, thoughtNumber=1, totalThoughts=1)
    ra, rb = _refusals(a, b, call)
    assert rule_retested(call, ra, rb, retested(a, b, TIMEOUT), "base", "head") is None  # type: ignore[arg-type]


def test_a_field_never_checked_is_found_by_sending_an_object() -> None:
    a, b = _server("unchecked=isRevision"), _server()
    call = valid(isRevision="true")
    # Three pairs of servers, re-tested side by side: the second side checks the field (refusing {} too), the
    # third refuses in a schema library's words, which name no field as "Invalid isRevision:" does.
    found, checking, schema = side_by_side(*(
        partial(unchecked_retested, "isRevision", call, "b", retested(x, y, TIMEOUT), "base", "head")
        for x, y in ((a, b), (_server(), b), (a, _server("schema-words")))))
    assert found is not None and found.conclusion.startswith("base does not check `isRevision`"), found
    assert checking is None  # a side that checks the field is not said not to check it
    assert schema is not None and schema.kind == "unchecked", schema


def test_a_field_refused_without_its_companion() -> None:
    a, b = _server(), _server("revision-needs-target")
    call = valid(thoughtNumber=2, isRevision=True)
    found, lenient = side_by_side(*(
        partial(companion_retested, "isRevision", call, "b", retested(a, y, TIMEOUT))
        for y in (b, _server("unchecked=isRevision"))))
    assert found == "`isRevision` without `revisesThought`"
    assert lenient is None  # neither side refusing it: no rule to find


def _wording_difference(call: dict[str, JSON], a: JSON, b: JSON) -> Difference:
    ra, rb = refusal(a), refusal(b)
    assert ra is not None and rb is not None
    return Difference(id="answer.x.error-text", aspect="answer", summary="", field=ra.field,
                      detail="error text", cause="error-text", a=f"isError {ra.words}",
                      b=f"isError {rb.words}",
                      program=frames((Step(TOOL, call),)))  # type: ignore[arg-type]


def test_run_and_compare_say_the_same_sentence_for_the_same_pair() -> None:
    """The one explainer: `run`'s evidence re-tests a cause's lead pair as `compare` does, and says the
    same."""
    a, b = _server(), _server("converts=thoughtNumber")
    call = valid(thoughtNumber="5", nextThoughtNeeded="yes")
    answer_a, answer_b = _answers(a, b, call)
    marked = with_retests([_wording_difference(call, answer_a, answer_b)], retested(a, b, TIMEOUT),
                          "the original", "this server", lambda _: None)
    headline = explain(marked, "the original", "this server", default_known_changes()).headline
    unretested = refusals_compared(refusal(answer_a), refusal(answer_b)).replace("{here}", "here")
    assert unretested.endswith("another field refused first, not a re-wording"), unretested
    evidence = Evidence(reproduced=True, at="on the example's tools/call 1", original=json.dumps(answer_a),
                        target=json.dumps(answer_b), differences=[unretested])
    request = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                          "params": {"name": TOOL, "arguments": call}})
    with _Replays(b, a, TIMEOUT) as replays:
        assert _retested(evidence, [request], 1, replays, fresh=False) == evidence  # nothing re-tested yet
        again = _retested(evidence, [request], 1, replays, fresh=True)
        calls = replays.retests.calls
        # A record showing the same pair says the cause's sentence without a second re-test.
        assert _retested(evidence, [request], 1, replays, fresh=False) == again
        assert replays.retests.calls == calls == 2
    sentence = again.differences[0]
    assert "this server lets `thoughtNumber` given as “5” pass where the original refuses it" in sentence
    assert sentence.startswith("both refuse, naming `thoughtNumber` on the original and `nextThoughtNeeded` "
                               "on this server: this server lets")
    # The run's grouping reads the same key and field from it as from the sentence it replaces.
    assert _difference_key(sentence) == _difference_key(unretested) == "another field refused first"
    assert refused_field(sentence) == "thoughtNumber"
    assert _family(sentence) == _family(unretested) == "refusal of thoughtNumber"
    # A record's check quoting either refusal is told by the re-tested sentence as by the one it replaces.
    ra_, rb_ = refusal(answer_a), refusal(answer_b)
    assert ra_ is not None and rb_ is not None
    for check in (f"refused with “{rb_.words}”", f"the original says “{ra_.words}”"):
        assert _tells(sentence, check) == _tells(unretested, check) is True, check
    assert sentence.lower() in headline.lower(), (sentence, headline)
    ra, rb = refusal_in_text(marked[0].a), refusal_in_text(marked[0].b)
    assert marked[0].cause == "validation" and ra.field != rb.field


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.permutations(REQUIRED), st.permutations(REQUIRED))
def test_every_field_checked_on_both_sides_is_validation_order(
    order_a: list[str], order_b: list[str]
) -> None:
    """Two sides checking the same fields in any two orders: when a call bad in every field is refused naming
    other fields, the re-test says validation order; when the same field, there is nothing to re-test."""
    a, b = _server("order=" + ",".join(order_a)), _server("order=" + ",".join(order_b))
    call: dict[str, JSON] = {
        "thought": 1, "thoughtNumber": "x", "totalThoughts": "y", "nextThoughtNeeded": "z"}
    ra, rb = _refusals(a, b, call)
    found = refusals_retested(call, ra, rb, retested(a, b, TIMEOUT), "a", "b")  # type: ignore[arg-type]
    if order_a[0] != order_b[0]:
        assert found is not None and found.kind == "order", (order_a, order_b, found)
        assert said(found, ra, rb, "a", "b").startswith(  # type: ignore[arg-type]
            f"both refuse, naming `{order_a[0]}` on a and `{order_b[0]}` on b: the same call validated in "
            "another order")
    else:
        assert found is None


def test_retests_count_their_calls_and_pairs() -> None:
    ask: Retests = retested(_server(), _server(), TIMEOUT)
    assert ask([valid(), valid()]) is not None
    assert (ask.calls, ask.pairs) == (2, 1)


def _refused_by_b(field: str, value_class: str, call: dict[str, JSON], text: str, cause: str) -> Difference:
    return Difference(id=f"is_error.{field}.{value_class}.refused-by-b", aspect="is_error", summary="",
                      field=field, value_class=value_class, detail="refused by b", cause=cause,
                      a='{"thoughtNumber": 1}', b=f"isError {text}",
                      program=frames((Step(TOOL, call),)))  # type: ignore[arg-type]


def test_compare_says_the_companion_rule_and_the_unchecked_field_apart() -> None:
    """`isRevision` true without `revisesThought` refused by a rule, other values of it by a check the base
    never makes: two findings, the rule first, neither said as a kind of value nor as a conversion."""
    a, b = _server("unchecked=isRevision"), _server("revision-needs-target")
    differences = [
        _refused_by_b("isRevision", "boolean", valid(isRevision=True),
                      "Invalid isRevision: isRevision requires revisesThought", "validation"),
        _refused_by_b("isRevision", "boolean string", valid(isRevision="true"),
                      "Invalid isRevision: must be a boolean", "coercion"),
    ]
    ask = retested(a, b, TIMEOUT)
    marked = with_retests(differences, ask, "base", "head", lambda _: None)
    assert [d.cause for d in marked] == ["validation", "validation"]
    headline = explain(marked, "base", "head", default_known_changes()).headline
    assert "head refuses `isRevision` without `revisesThought`" in headline, headline
    assert "base does not check `isRevision`" in headline, headline
    assert "boolean" not in headline, headline
    assert ask.pairs == 2, ask.pairs  # one re-test per finding, bounded


def test_two_crashes_reading_another_property_first_are_no_rewording() -> None:
    """PR #2812's call without arguments: base crashes reading `thought`, head `thoughtNumber` (its converter
    reads it first). Both commands say the order, neither a re-wording; one property each is no order."""
    crash_a = "isError Cannot read properties of undefined (reading 'thought')"
    crash_b = "isError Cannot read properties of undefined (reading 'thoughtNumber')"
    run_said = refusals_compared(refusal_in_text(crash_a), refusal_in_text(crash_b))
    assert run_said.endswith("the original reading `thought` first, this server `thoughtNumber`: the same "
                             "failure reached in another order, not a re-wording"), run_said
    d = Difference(id="answer.arguments.error-text", aspect="answer", summary="", field="arguments",
                   value_class="missing", detail="error text", cause="validation", a=crash_a, b=crash_b,
                   program=[json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                        "params": {"name": TOOL}})])
    headline = explain([d], "base", "head", default_known_changes()).headline
    assert headline.startswith("Calls without arguments: both crash reading a property of a missing value, "
                               "base reading `thought` first, head `thoughtNumber`"), headline
    assert "worded otherwise" not in headline, headline
    same = refusals_compared(refusal_in_text(crash_a), refusal_in_text(crash_a.replace("undefined", "null")))
    assert "another order" not in same, same


def test_fields_left_out_are_re_tested_as_left_out() -> None:
    """A call leaving out both numbers (the falsy guard's example): the original names `thoughtNumber`, a fork
    checking `totalThoughts` first names it; each left out alone is refused by both: validation order."""
    a, b = _server(), _server("order=totalThoughts,thought,thoughtNumber,nextThoughtNeeded")
    call: dict[str, JSON] = {"thought": "t"}
    c = _server("order=totalThoughts,thought,thoughtNumber,nextThoughtNeeded", "converts=thoughtNumber")
    converted: dict[str, JSON] = {"thought": "t", "thoughtNumber": "2"}

    def order(x: Target, y: Target, sent: dict[str, JSON]) -> Retested | None:
        rx, ry = _refusals(x, y, sent)
        return order_retested(sent, rx, ry, retested(x, y, TIMEOUT), "base", "head")  # type: ignore[arg-type]

    # The two pairs re-tested side by side, each on its own fresh processes.
    found, lets = side_by_side(partial(order, a, b, call), partial(order, a, c, converted))
    assert found is not None and found.kind == "order", found
    assert lets is not None and lets.kind == "lets-pass", lets
    assert lets.conclusion.startswith(
        "head lets `thoughtNumber` given as “2” pass where base refuses it, and refuses `totalThoughts` "
        "next"), lets


def test_a_crash_against_a_refusal_of_a_call_without_arguments() -> None:
    """PR #3007: base crashes reading `thought` of the missing arguments, head refuses the call
    (“Required”)."""
    d = Difference(id="answer.arguments.error-text", aspect="answer", summary="", field="arguments",
                   detail="error text", cause="validation",
                   a="isError Cannot read properties of undefined (reading 'thought')", b="isError Required",
                   program=[json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                        "params": {"name": TOOL}})])
    headline = explain([d], "base", "head", default_known_changes()).headline
    assert headline.startswith(
        "Calls without arguments: base crashes reading `thought` of them (“Cannot read properties of "
        "undefined (reading 'thought')”) where head refuses them (“Required”)"), headline
