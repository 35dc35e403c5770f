"""One side crashing on a value the other refuses by a rule it states is no re-wording (issue 42, PRs #3001,
#3002, #3007: base draws a `revisesThought` object into the box and crashes, "Cannot convert object to
primitive value", where head refuses it by its type; compare listed `revisesThought` among the "refusals …
worded otherwise")."""

from __future__ import annotations

import json
from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.programs import Step, frames, valid
from conformance.core.protocol import TOOL
from conformance.report.model import Difference

CRASHES: Final = ("Cannot convert object to primitive value", "this.branches[x].push is not a function",
                  "Cannot read properties of null (reading 'length')", "TypeError: x is not iterable",
                  "Maximum call stack size exceeded")
FIELDS: Final = ("revisesThought", "branchFromThought", "branchId", "needsMoreThoughts")
CLASSES: Final = ("object", "array", "boolean", "negative number")


def _refusal(words: str) -> str:
    return "isError " + json.dumps({"error": words, "status": "failed"})


def _worded(field: str, value_class: str, wa: str, wb: str) -> Difference:
    args = valid(thought="a") | {field: {"toString": 1}}
    return Difference(id=f"answer.{field}.error-text", aspect="answer", detail="error text", summary="",
                      field=field, value_class=value_class, a=_refusal(wa), b=_refusal(wb),
                      cause="error-text", program=frames((Step(TOOL, args),)))


def _headline(ds: list[Difference]) -> str:
    return explain(ds, "base", "head", default_known_changes()).headline


@given(field=st.sampled_from(FIELDS), value_class=st.sampled_from(CLASSES), crash=st.sampled_from(CRASHES),
       crashing_base=st.booleans())
def test_a_crash_against_a_stated_rule_is_said_as_such(field: str, value_class: str, crash: str,
                                                       crashing_base: bool) -> None:
    rule = f"Invalid {field}: must be a number"
    wa, wb = (crash, rule) if crashing_base else (rule, crash)
    headline = _headline([_worded(field, value_class, wa, wb)])
    crashing, refusing = ("base", "head") if crashing_base else ("head", "base")
    assert f"`{field}` given as " in headline, headline
    assert f"{crashing} crashes (“{crash}”) where {refusing} refuses (“{rule}”)" in headline, headline
    assert "worded otherwise" not in headline, headline


def test_a_re_wording_beside_a_crash_is_still_said_as_one() -> None:
    typed = "revisesThought: Expected number, received object"
    crash = _worded("revisesThought", "object", CRASHES[0], typed)
    reworded = _worded("thought", "empty string", "Invalid thought: must be a string",
                       "Invalid thought: must be a non-empty string")
    headline = _headline([crash, reworded])
    assert "base crashes (“Cannot convert object to primitive value”)" in headline, headline
    assert "refusals of `thought` are worded otherwise" in headline, headline
    assert "`revisesThought` are worded" not in headline and "and `revisesThought`" not in headline, headline


@given(words=st.sampled_from(("Required", "Invalid input: expected object, received undefined",
                              "Invalid arguments: must be an object")))
def test_a_call_without_arguments_crashed_on_one_side_is_said_apart_from_re_wordings(words: str) -> None:
    """PR #3014: the call without arguments among twenty refusals read "rewritten: “Cannot read properties of
    undefined (reading 'thought')” against “Required”"."""
    bare = Difference(id="answer.arguments.error-text", aspect="answer", detail="error text", summary="",
                      field="arguments", value_class="", cause="error-text",
                      a=_refusal("Cannot read properties of undefined (reading 'thought')"),
                      b=_refusal(words),
                      program=frames((Step(TOOL),)))
    reworded = _worded("thought", "integer", "Invalid thought: must be a string",
                       "Expected string, received number")
    headline = _headline([reworded, bare])
    assert ("calls without arguments: base crashes reading `thought` of them (“Cannot read properties of "
            f"undefined (reading 'thought')”) where head refuses them (“{words}”)") in headline, headline
    assert "`arguments` are worded" not in headline and "and `arguments`" not in headline, headline
