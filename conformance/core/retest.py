"""Two refusals of one call, re-tested before they are explained: the one place `run`'s evidence and
`compare` decide whether refusals naming other fields are validation order, a field one side lets pass, or a
rule between numbered fields, so both commands say the same sentence for the same pair (issue 42).

The re-tests send a few calls on fresh processes of both sides through an `Ask` the caller supplies (compare's
`compare/pair.retested`); this module holds the rules and the words, nothing of processes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from conformance.core.differences import RUNTIME_ERROR, WHOLE_CHARS, Refusal, other_fields, quoted, refusal
from conformance.core.jsontypes import JSON

Arguments = dict[str, JSON]
Ask = Callable[[Sequence[Arguments]], tuple[list[JSON], list[JSON]] | None]
"""Sends each arguments object as a tools/call, in order, on one fresh process of each side; both sides'
JSON-RPC responses, or None when either side broke off (no answer, exited, failed to start)."""

ACCEPTABLE: Final[dict[str, JSON]] = {
    "thought": "a re-tested thought", "thoughtNumber": 3, "totalThoughts": 3, "nextThoughtNeeded": True,
}
"""A value every side accepts for each required field; an optional field is made acceptable by leaving it
out."""
NUMBERED: Final = ("thoughtNumber", "totalThoughts")
AT: Final[dict[str, JSON]] = {"thoughtNumber": 3, "totalThoughts": 3}
"""Where a call breaking a rule between numbered fields is re-sent: thought 3 of 3."""
VALUE_CHARS: Final = WHOLE_CHARS
"""A value is shown whole up to this many characters (issue 42: values under 200 characters never cut)."""
RETESTED: Final = "re-tested on fresh calls"


@dataclass(frozen=True)
class Retested:
    """What a re-test found: its `kind` (order, lets-pass, both-let-pass, rule, state, unchecked) and the
    `conclusion` said after the pair's own words; `calls` is how many tools/call each side was sent. A pair
    answered alike when its call is sent alone is "state": the refusal needs the calls before it."""

    kind: str
    conclusion: str
    calls: int


def _answer(response: JSON) -> Refusal | str | None:
    """A response read as refused (its refusal), accepted (None), or "?" when it is neither."""
    found = refusal(response)
    if found is not None:
        return found
    return None if isinstance(response, dict) and isinstance(response.get("result"), dict) else "?"


def accepted(response: JSON) -> bool:
    """Whether a JSON-RPC response is an accepted tool result (neither flagged isError nor an error)."""
    return _answer(response) is None


def _value(value: JSON) -> str:
    """A string in quotes, any other value as JSON in code marks."""
    if isinstance(value, str):
        return quoted(value, VALUE_CHARS)
    return f"`{quoted(json.dumps(value, ensure_ascii=False), VALUE_CHARS)[1:-1]}`"


def alone(call: Arguments, field: str) -> Arguments:
    """A call every side accepts but for `field`, given as `call` gave it (with the field it goes with, when
    `call` has that too): does a side refuse this field's value by itself?"""
    out: Arguments = dict(ACCEPTABLE)
    if field in call:
        out[field] = call[field]
    else:  # a required field the call left out stays out
        out.pop(field, None)
    companion = COMPANIONS.get(field)
    if companion is not None and companion[0] in call:
        out[companion[0]] = call[companion[0]]
    return out


def order_retested(call: JSON, a: Refusal, b: Refusal, ask: Ask, la: str, lb: str) -> Retested | None:
    """Two refusals naming different fields (`a` names F, `b` names G), each field re-sent alone in a call
    otherwise accepted, on a fresh pair: validation order only when each side refuses the other's field too; a
    side accepting the other's field alone lets it pass. None when the re-test cannot tell (a side broke off,
    named a third field, or did not refuse its own field alone)."""
    f, g = a.field, b.field
    if not (isinstance(call, dict) and f and g and f != g and _sent(call, f) and _sent(call, g)):
        return None
    answered = ask([alone(call, f), alone(call, g)])
    if answered is None or len(answered[0]) != 2 or len(answered[1]) != 2:
        return None
    (a_f, a_g), (b_f, b_g) = ([_answer(r) for r in side] for side in answered)
    if not (_names(a_f, f) and _names(b_g, g)):
        return None
    how = (f"{RETESTED}: with only `{f}` as sent {lb} {_verdict(b_f)}; with only `{g}` as sent {la} "
           f"{_verdict(a_g)}")
    vf, vg = _given(call, f), _given(call, g)
    if _names(a_g, g) and _names(b_f, f):
        conclusion = ("the same call validated in another order, each side refusing the other's field too, "
                      f"not a re-wording ({how})")
        return Retested("order", conclusion, 2)
    if b_f is None and _names(a_g, g):
        conclusion = (f"{lb} lets {vf} pass where {la} refuses it, and refuses `{g}` next: no refusal is "
                      f"re-worded ({how})")
        return Retested("lets-pass", conclusion, 2)
    if a_g is None and _names(b_f, f):
        conclusion = (f"{la} lets {vg} pass where {lb} refuses it, and refuses `{f}` next: no refusal is "
                      f"re-worded ({how})")
        return Retested("lets-pass", conclusion, 2)
    if a_g is None and b_f is None:
        conclusion = (f"{la} refuses {vf}, which {lb} lets pass, and {lb} refuses {vg}, which {la} lets "
                      f"pass: no refusal is re-worded ({how})")
        return Retested("both-let-pass", conclusion, 2)
    return None


def _sent(call: Arguments, field: str) -> bool:
    """Whether the call gave `field` a value, or left out a required one (a refusal may name either)."""
    return field in call or field in ACCEPTABLE


def _given(call: Arguments, field: str) -> str:
    return f"`{field}` given as {_value(call[field])}" if field in call else f"a missing `{field}`"


def _names(answer: Refusal | str | None, field: str) -> bool:
    return isinstance(answer, Refusal) and answer.field == field


def _refuses_field(answer: Refusal | str | None, field: str) -> bool:
    """A refusal naming `field`, or naming none but speaking of it (a schema library's "isRevision: Expected
    boolean, received object")."""
    if not isinstance(answer, Refusal):
        return False
    return answer.field == field or (not answer.field and field in answer.words)


def _verdict(answer: Refusal | str | None) -> str:
    if answer is None:
        return "accepts the call"
    if isinstance(answer, Refusal):
        named = f"refuses it naming `{answer.field}`"
        return named if answer.field else f"refuses it: {quoted(answer.words)}"
    return "gives no tool result"


def rule_retested(call: JSON, a: Refusal, b: Refusal, ask: Ask, la: str, lb: str) -> Retested | None:
    """Two refusals of one call in other words, where the call carries numbered fields: re-sent at thought 3
    of 3 first. When one side then answers as the other did (the other's answer unchanged), that side refused
    first by a rule between the numbered fields: no re-wording. None when the re-test shows no such thing."""
    if not isinstance(call, dict) or not any(isinstance(call.get(n), int | float) for n in NUMBERED):
        return None
    if all(call.get(n) == v for n, v in AT.items()):
        return None
    answered = ask([{**call, **AT}])
    if answered is None or len(answered[0]) != 1 or len(answered[1]) != 1:
        return None
    at_a, at_b = _answer(answered[0][0]), _answer(answered[1][0])
    settled = "with `thoughtNumber` 3, `totalThoughts` 3"
    sides = ((lb, la, b, a, at_b, at_a), (la, lb, a, b, at_a, at_b))
    for first, then, r_first, r_then, now, unchanged in sides:
        if RUNTIME_ERROR.search(r_first.words):
            continue  # a crash a value avoided (bartoszkula-ts reading 'split' at thought 1), no stated rule
        if unchanged == r_then and now == r_then:
            if _alike_alone(call, ask):
                conclusion = (f"{first} answers {quoted(r_first.words)} where {then} answers "
                              f"{quoted(r_then.words)}; sent alone on fresh processes, {first} answers as "
                              f"{then} does ({RETESTED})")
                return Retested("state", conclusion, 2)
            conclusion = (f"{first} refuses first by a rule between numbered fields "
                          f"({quoted(r_first.words)}) where {then} answers {quoted(r_then.words)}; "
                          f"{settled} {first} answers as {then} does ({RETESTED})")
            return Retested("rule", conclusion, 1)
    return None


def _alike_alone(call: Arguments, ask: Ask) -> bool:
    """Whether the call, unchanged, sent alone on fresh processes is answered alike by both sides: then the
    difference needs the calls sent before it (a refusal after refusals in a row), not a rule of this call's
    numbers (held-out-multi-9's lockout, re-tested at 3 of 3 on fresh processes, read as a rule)."""
    answered = ask([call])
    if answered is None or len(answered[0]) != 1 or len(answered[1]) != 1:
        return False
    return _answer(answered[0][0]) == _answer(answered[1][0])


def refusals_retested(call: JSON, a: Refusal, b: Refusal, ask: Ask, la: str, lb: str) -> Retested | None:
    """The re-test two differing refusals of one call call for: naming different fields, the order re-test;
    else (the same field in other words, or a field named on one side only) the rule re-test at 3 of 3."""
    if (a.words, a.kind) == (b.words, b.kind):
        return None
    if other_fields(a.field, b.field):
        return order_retested(call, a, b, ask, la, lb)
    return rule_retested(call, a, b, ask, la, lb)


def unchecked_retested(
    field: str, call: JSON, refused_by: str, ask: Ask, la: str, lb: str
) -> Retested | None:
    """A field one side refuses a value of and the other accepts: sent as `{}` (no value any check lets
    pass). When the accepting side accepts it too and the refusing side refuses it naming the field, the
    accepting side does not check the field at all: validation, not a conversion."""
    if not isinstance(call, dict) or field in ACCEPTABLE or refused_by not in ("a", "b"):
        return None
    answered = ask([{**call, field: {}}])
    if answered is None or len(answered[0]) != 1 or len(answered[1]) != 1:
        return None
    at_a, at_b = _answer(answered[0][0]), _answer(answered[1][0])
    strict, lenient = (at_a, at_b) if refused_by == "a" else (at_b, at_a)
    refusing, accepting = (la, lb) if refused_by == "a" else (lb, la)
    if lenient is None and _refuses_field(strict, field):
        conclusion = (f"{accepting} does not check `{field}` ({RETESTED}: it accepts {{}} for it, {refusing} "
                      "refuses it)")
        return Retested("unchecked", conclusion, 1)
    return None


__all__ = [
    "ACCEPTABLE",
    "AT",
    "COMPANIONS",
    "RETESTED",
    "Arguments",
    "Ask",
    "Retested",
    "accepted",
    "alone",
    "companion_retested",
    "lacks_companion",
    "order_retested",
    "refusals_retested",
    "rule_retested",
    "said",
    "unchecked_retested",
]


COMPANIONS: Final[dict[str, tuple[str, JSON]]] = {
    "isRevision": ("revisesThought", 1),
    "revisesThought": ("isRevision", True),
    "branchFromThought": ("branchId", "retested-branch"),
    "branchId": ("branchFromThought", 1),
}
"""The field each optional field goes with, and a value for it below thought 3."""


def companion_retested(field: str, call: JSON, refused_by: str, ask: Ask) -> str | None:
    """A field one side refuses where the call lacks the field it goes with (`isRevision` without
    `revisesThought`, or a boolean companion given otherwise than true): re-sent at thought 3 of 3 as it
    was, then with its companion. When the refusing side
    refuses the first and both sides accept the second, the other accepting both, the rule
    is the missing companion: "`isRevision` without `revisesThought`"; else None."""
    if field not in COMPANIONS or not isinstance(call, dict) or refused_by not in ("a", "b"):
        return None
    other, value = COMPANIONS[field]
    if not lacks_companion(field, call):
        return None
    answered = ask([{**call, **AT}, {**call, **AT, other: value}])
    if answered is None or len(answered[0]) != 2 or len(answered[1]) != 2:
        return None
    (a_without, a_with), (b_without, b_with) = ([_answer(r) for r in side] for side in answered)
    strict, lenient = (a_without, b_without) if refused_by == "a" else (b_without, a_without)
    # The refusing side's words may name either field ("When isRevision is true, revisesThought must be …").
    if isinstance(strict, Refusal) and lenient is None and a_with is None and b_with is None:
        # Given otherwise (`isRevision` "true"), the rule names its value: "without `isRevision` true".
        return f"`{field}` without `{other}`" + (f" {json.dumps(value)}" if other in call else "")
    return None


def lacks_companion(field: str, call: JSON) -> bool:
    """Whether `call` leaves out the field `field` goes with, or gives a boolean one another value than
    its own (`isRevision` "true" beside `revisesThought`: held-out-multi-12's strict-pointers refuses it
    unless `isRevision` is true)."""
    if field not in COMPANIONS or not isinstance(call, dict):
        return False
    other, value = COMPANIONS[field]
    return other not in call or (isinstance(value, bool) and call[other] is not value)


def said(found: Retested, a: Refusal, b: Refusal, la: str, lb: str) -> str:
    """The one sentence both `run`'s evidence and `compare` say for a re-tested pair of refusals: the field
    each names first and the conclusion; a rule between numbered fields said as such."""
    if found.kind == "rule":
        return f"both refuse this call, in other words: {found.conclusion}"
    if found.kind == "state":  # the point first: a headline is cut at 150 characters
        return f"both refuse this call, in other words only after the calls before it: {found.conclusion}"
    # Short before the conclusion, which a headline cut at 150 characters must still reach; "naming `F`" is
    # the run's grouping key (gate/evidence.refused_field) and the refusals' own words, last, are what a
    # record's check quotes (gate/evidence._tells): a record is grouped as it was before the re-test.
    return (f"both refuse, naming `{a.field}` on {la} and `{b.field}` on {lb}: {found.conclusion} ({la}: "
            f"{quoted(a.words, 80)}; {lb}: {quoted(b.words, 80)})")
