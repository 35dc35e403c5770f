"""compare: each rule one side adds is a cause of its own, and a crash in the render is the render's (issue
42: tests/servers/many_changes.py's `max-thought`, `integer-numbers` and `revision-pair` were one
`validation` cause, and `render-logged`'s call, which the original refuses while drawing the box, was filed
there too). Differences as a comparison of that fork keeps them (/tmp compare of reference against
`many_changes max-thought=1000 integer-numbers revision-pair render-logged`, dev profile, seed 1)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.attribution import default_rules
from conformance.compare.engine import explain_again
from conformance.compare.limits import one_cause_per_rule, rule_of
from conformance.compare.observe import Found
from conformance.compare.relations import UNCHECKED_CLASS
from conformance.report.model import Difference

ACCEPTED = '{ "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": false, "branches": [] }'
NUMBERS = ("thoughtNumber", "totalThoughts", "revisesThought", "branchFromThought")


def _refused(field: str, value_class: str, words: str, by: str = "b") -> Difference:
    """A call one side refuses with `words`, attributed by the shipped rules."""
    refusal = f'isError {{ "error": "{words}", "status": "failed" }}'
    a, b = (refusal, ACCEPTED) if by == "a" else (ACCEPTED, refusal)
    detail = f"refused by {by}"
    records, cause = default_rules().attribute(Found("is_error", field, value_class, detail, a, b, True))
    parts = ("is_error", field, value_class, detail)
    slug = ".".join(x.replace(" ", "-") for x in parts if x)
    return Difference(id=slug, aspect="is_error", summary=slug, records=records, cause=cause, a=a, b=b,
                      field=field, value_class=value_class, detail=detail)


def _fork(fields: list[str]) -> list[Difference]:
    return [
        *(_refused(f, "fraction", f"Invalid {f}: must be a positive integer") for f in fields),
        _refused("thought", "string", "Invalid thought: must be between 1 and 1000 characters"),
        _refused("revisesThought", "missing", "revisesThought is required when isRevision is true"),
        _refused("", "", "Cannot convert object to primitive value", by="a"),
    ]


@given(fields=st.lists(st.sampled_from(NUMBERS), min_size=1, max_size=4, unique=True))
def test_three_limits_are_three_causes_and_the_render_crash_is_the_renders(fields: list[str]) -> None:
    causes = {frozenset(c.differences): c.id for c in explain_again(_fork(fields), "reference", "fork")}
    numbers = frozenset(f"is_error.{f}.fraction.refused-by-b" for f in fields)
    assert set(causes) == {numbers, frozenset({"is_error.thought.string.refused-by-b"}),
                           frozenset({"is_error.revisesThought.missing.refused-by-b"}),
                           frozenset({"is_error.refused-by-a"})}
    assert causes[frozenset({"is_error.refused-by-a"})] == "render"
    assert causes[numbers] == "validation"  # one rule over every number field: one cause, the largest


def test_a_rule_masks_its_field_and_keeps_its_numbers() -> None:
    one = _refused("thoughtNumber", "fraction", "Invalid thoughtNumber: must be a positive integer")
    other = _refused("totalThoughts", "zero", "Invalid totalThoughts: must be a positive integer")
    assert rule_of(one) == rule_of(other) == "Invalid {field}: must be a positive integer"
    short = _refused("thought", "string", "Invalid thought: must be between 1 and 1000 characters")
    long = _refused("thought", "string", "Invalid thought: must be between 1 and 10000 characters")
    assert rule_of(short) != rule_of(long)


def test_one_rule_keeps_one_validation_cause() -> None:
    alone = [_refused(f, "fraction", f"Invalid {f}: must be a positive integer") for f in NUMBERS]
    assert one_cause_per_rule(alone) == alone
    assert {c.id for c in explain_again(alone, "reference", "fork")} == {"validation"}


def test_a_rule_is_the_top_level_error_as_refusal_words_reads_it() -> None:
    """A refusal's words are the top-level `error` of its JSON, read by core's one parser (`refusal_error`,
    which `refusal_words` reads by): a regex took the first `"error": "…"` anywhere in the shown answer, a
    nested detail's before the refusal's own, and two limits refusing with the same detail were one rule."""
    detail = '"details": { "error": "bad value" }'
    one = _refused("thought", "string", "Invalid thought: at most 1000 characters", by="b")
    other = _refused("thought", "string", "Invalid thought: at most 10000 characters", by="b")
    nested = [d.model_copy(update={"b": d.b.replace("isError { ", "isError { " + detail + ", ")})
              for d in (one, other)]
    assert all('"bad value"' in d.b for d in nested)
    assert rule_of(nested[0]) == "Invalid {field}: at most 1000 characters"
    assert rule_of(nested[0]) != rule_of(nested[1])
    plain = one.model_copy(update={"b": "isError Invalid thought: at most 1000 characters"})
    assert rule_of(plain) == "", "a plain-text refusal states no rule, as before"


def test_a_rule_refused_with_a_protocol_error_is_a_cause_of_its_own() -> None:
    """held-out-multi-12's strict-pointers: its runaway rule, a JSON-RPC error -32000 where the original
    accepts, was filed under its revisesThought rule's cause (only isError refusals stated a rule)."""
    runaway = "thoughtNumber 9007199254740994 is more than ten times totalThoughts 1"
    a, b = ACCEPTED, f'protocol error: {{"code": -32000, "message": "{runaway}"}}'
    detail = "tool result vs protocol error"
    records, cause = default_rules().attribute(Found("error_class", "thoughtNumber", "number beyond 2^53",
                                                     detail, a, b, True))
    protocol = Difference(id="error_class.x", aspect="error_class", summary="", records=records, cause=cause,
                          a=a, b=b, field="thoughtNumber", value_class="number beyond 2^53", detail=detail)
    pointers = [_refused("revisesThought", c, "Invalid revisesThought: only allowed when isRevision is true")
                for c in ("zero", "integer")]
    assert rule_of(protocol) == f"protocol error: {runaway.replace('thoughtNumber', '{field}')}"
    split = one_cause_per_rule([*pointers, protocol])
    assert [d.cause for d in split] == ["validation", "validation", "validation/2"], split


OPTIONAL = ("isRevision", "revisesThought", "branchFromThought", "branchId", "needsMoreThoughts")


@given(st.lists(st.tuples(st.sampled_from(OPTIONAL), st.sampled_from(["boolean", "null", "object", "array"])),
                min_size=2, max_size=6, unique=True))
def test_fields_a_side_does_not_check_are_one_cause(refused: list[tuple[str, str]]) -> None:
    """upstream #3007's head refuses each type in zod's words ("Expected number, received boolean", "…
    received null"): each was a rule of its own, and "base does not check `revisesThought`" headed four
    causes. A field the re-test found unchecked is one finding of the accepting side, whatever the words."""
    unchecked = [_refused(f, c, f"{f}: Expected something, received {c}").model_copy(
        update={"value_class": UNCHECKED_CLASS, "cause": "validation"}) for f, c in refused]
    other = _refused("thoughtNumber", "fraction", "Invalid thoughtNumber: must be a positive integer")
    split = one_cause_per_rule([*unchecked, other])
    assert len({d.cause for d in split[:-1]}) == 1, [d.cause for d in split]
    assert split[-1].cause != split[0].cause
    causes = explain_again(split, "base", "head")
    said = [c.summary for c in causes if c.id == split[0].cause]
    assert len(said) == 1 and said[0].count("does not check") == 1, said
