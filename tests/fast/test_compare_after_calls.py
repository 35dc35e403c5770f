"""A refusal that follows from the calls before it, said as one cause over calls, never as a value class
(held-out-multi-14's gateway: 40 calls in 5 seconds filed under three causes, one headed "0.6.2 accepts some
values for `a field` that … refuses"). The differences are those `compare` recorded against that fork
(kept runs of round 19), their refusal words drawn."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.after_calls import CAUSE, regrouped
from conformance.compare.attribution import default_rules
from conformance.compare.engine import root_causes
from conformance.report.model import Difference

_ORIGINAL = {
    "thought": "Invalid thought: must be a string",
    "thoughtNumber": "Invalid thoughtNumber: must be a number",
    "arguments": "Cannot read properties of undefined (reading 'thought')",
}


def _refused(words: str) -> str:
    return "isError " + json.dumps({"error": words, "status": "failed"}, indent=2)


def _differences(words: str) -> list[Difference]:
    """An accepted call refused after 20 others (earlier-calls), two validation refusals answered in the
    budget's words instead, and the long probe's call 41 refused."""
    accepted = '{ "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": false }'
    out = [Difference(id="is_error.refused-by-b", aspect="is_error", summary="", cause="earlier-calls",
                      detail="refused by b", a=accepted, b=_refused(words), records=["RTE-3"])]
    for field, said in _ORIGINAL.items():
        out.append(Difference(
            id=f"answer.{field}.error-text", aspect="answer", field=field, summary="", cause="validation",
            detail="error text", a=_refused(said), b=_refused(words), records=["RTE-3"],
            value_class=f"re-tested: state: B answers “{words}” where A answers “{said}”; sent alone on "
                        "fresh processes, B answers as A does"))
    out.append(Difference(
        id="store.thoughtHistoryLength.long-probe", aspect="store", field="thoughtHistoryLength", summary="",
        cause="history-bound", detail="long probe", records=["RTE-5"],
        a="keeps it growing by one a call (41 after call 41)",
        b=f"does not accept the probe's call 41 ({_refused(words)})"))
    out.append(Difference(id="exit_status.stdin-closed.changed", aspect="exit_status", field="stdin closed",
                          summary="", cause="lifecycle", detail="changed", a="exit status 0",
                          b="exit status 75", records=["RTE-10"]))
    return out


_words = st.sampled_from([
    "Rate limit exceeded: at most 40 calls in 5 seconds", "Too many requests, slow down",
    "Thought limit reached (100)", "quota exhausted for this session"])


@given(words=_words)
def test_one_refusal_after_calls_is_one_cause_said_over_calls(words: str) -> None:
    differences = _differences(words)
    grouped = regrouped(differences)
    assert {d.id for d in grouped if d.cause == CAUSE} == {d.id for d in differences[:-1]}, grouped
    causes = root_causes(differences, default_rules(), "0.6.2", "fork")
    assert len(causes) == 2, [c.summary for c in causes]
    [budget] = [c for c in causes if c.id == CAUSE]
    assert budget.summary.startswith(f"fork refuses calls that follow earlier calls on the same process with "
                                     f"“{words}”"), budget.summary
    assert "a field" not in budget.summary and "some values" not in budget.summary, budget.summary


def test_a_refusal_naming_its_field_stays_with_its_rule() -> None:
    """Words naming a field are that field's rule (a bound, a type), never regrouped as a budget."""
    differences = _differences("Invalid thought: too long after 40 calls")
    assert regrouped(differences) == differences
