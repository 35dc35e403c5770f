"""The step comparison and the attribution rules on their own, and an unusable target refused in one line
(the comparison of modified originals, on real servers: tests/e2e/test_compare_modified.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.strategies import json_values
from conformance.compare import UnusableTarget, run_comparison
from conformance.compare.attribution import default_rules, load_rules
from conformance.compare.observe import Found, Outcome, Store, compare_step, type_class
from conformance.compare.programs import Step, steps
from conformance.core.errors import HarnessError


def test_an_unusable_target_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nothing-here"
    with pytest.raises(UnusableTarget) as caught:
        run_comparison("reference", f"cmd:{missing}", budget_s=1)
    assert "\n" not in str(caught.value) and "nothing-here" in str(caught.value)
    with pytest.raises(HarnessError):
        run_comparison("reference", "reference", profile="nope")


PORTS = Path(__file__).resolve().parent.parent / "servers" / "ports.py"


def test_a_port_refusing_the_originals_names_stops_the_comparison_as_it_stops_a_run() -> None:
    """wild13's chinng-py (snake_case arguments): compare had no argument stop and printed a false
    "validation" headline, every camelCase call refused. It now stops with run's sentence: both sides'
    fields, the refusal, the spelling the port takes and the --arguments-map that compare accepts too (A: a
    port taking the original's call, lighter to start than the reference server)."""
    with pytest.raises(UnusableTarget) as caught:
        run_comparison(f"cmd:{sys.executable} {PORTS} icons", f"cmd:{sys.executable} {PORTS} snake",
                       budget_s=1)
    said = str(caught.value)
    assert "\n" not in said and "is not usable: the server's `sequentialthinking` requires thought, " \
        "next_thought_needed, thought_number, total_thoughts" in said, said
    assert "the original's call (thought, thoughtNumber, totalThoughts, nextThoughtNeeded) is refused" in said
    assert said.endswith("rerun with --arguments-map snake_case to check everything else"), said


# -- the step comparison, without servers ------------------------------------------------------------


def _answer(text: str, *, is_error: bool = False, store: Store | None = None) -> Outcome:
    parsed = json.loads(text) if text.startswith("{") else None
    return Outcome("result", is_error, text, parsed, parsed is not None, {}, store, "")


@given(steps, st.text(max_size=20), st.booleans())
def test_an_answer_never_differs_from_itself(step: Step, text: str, is_error: bool) -> None:
    outcome = _answer(json.dumps({"t": text}), is_error=is_error)
    assert compare_step(step, outcome, outcome) == []


@given(json_values)
def test_every_value_has_a_type_class(value: object) -> None:
    assert type_class(value) in {  # type: ignore[arg-type]
        "null", "boolean", "zero", "negative number", "fraction", "number beyond 2^53", "integer",
        "empty string", "prototype key", "boolean string", "numeric string", "string", "array", "object",
    }


@given(st.sampled_from(["true", "false"]), st.lists(st.booleans(), min_size=5, max_size=5))
def test_a_boolean_word_in_any_letter_case_is_a_boolean_string(word: str, upper: list[bool]) -> None:
    """upstream #3533's head reads "True" as true: filed under "string", its headline said head "accepts
    strings for `nextThoughtNeeded`", where it accepts boolean words only."""
    cased = "".join(c.upper() if up else c for c, up in zip(word, upper, strict=False))
    assert type_class(cased) == "boolean string"
    assert type_class(cased + "x") == "string"


def test_acceptance_outranks_the_answer_text_and_names_the_field() -> None:
    step = Step(arguments={"thought": "a", "thoughtNumber": "1", "totalThoughts": 1,
                           "nextThoughtNeeded": False})
    refused = _answer('{"error": "Invalid thoughtNumber: must be a number"}', is_error=True)
    accepted = _answer('{"thoughtNumber": 1}', store=(1, ()))
    (found,) = compare_step(step, refused, accepted)
    assert found.signature == "is_error.thoughtNumber.numeric-string.refused-by-a"
    assert found.affects_state


def test_every_rule_names_catalog_records_and_a_known_cause() -> None:
    rules = load_rules()
    assert rules == default_rules()
    refusal = 'isError {"error": "Invalid nextThoughtNeeded: must be a boolean"}'
    coercion = Found("is_error", "nextThoughtNeeded", "boolean string", "refused by a", refusal, "{}", True)
    assert rules.attribute(coercion)[1] == "coercion"
    stricter = Found("is_error", "isRevision", "numeric string", "refused by b", "{}",
                     'isError Expected boolean or "true"/"false" string, received "0" at isRevision', True)
    assert rules.attribute(stricter)[1] == "validation"
    annotations = Found("tools_list", "annotations", "", "added", "", "", False)
    assert rules.attribute(annotations) == (["RTE-1", "CMP-2"], "tool-spec")
    anything = Found("something new", "", "", "", "", "", False)
    assert rules.attribute(anything)[1] in rules.causes
