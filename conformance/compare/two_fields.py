"""A refusal that depends on two fields, found as the rule between them, not read off one field's value.

A fork refusing a `thoughtNumber` more than ten times `totalThoughts` was said as "numbers beyond 2^53 for
`thoughtNumber`" (the value the search happened to send), and one refusing a thought that both revises and
branches as a check on `isRevision` alone (issue 42, held-out-multi-12's strict-pointers). For a refusal by
one side only, each field is varied while the other is held, on a fresh pair, and the rule is chosen from a
small fixed family:

- a ratio or an offset between two numbered fields (`F` > k × `G`, `F` > `G` + c, and their lower kin): `F`
  sent along a fixed ladder with `G` held at each of two anchors, then bisected between the last accepted and
  the first refused value; a threshold that moves with `G` by a constant factor (or a constant offset) is the
  rule, one that stays put is a bound on `F` alone (`bounds.py`) and no relation;
- two optional fields not both set: the call refused, and accepted without either (each removed with the
  field it goes with), the other side accepting all three;
- a boolean refused only where two numbered fields stand in an order (`nextThoughtNeeded` false while
  `thoughtNumber` < `totalThoughts`: held-out-multi-10's plan-keeper), its other value accepted there.

Each rule is claimed only when the other side accepts every call sent; the calls are the same whatever seed
found the refusal (the ladder and the anchors are fixed; at most `MAX_STEPS` bisection steps per anchor).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from conformance.compare.bounds import RETESTED
from conformance.compare.observe import Outcome
from conformance.compare.pair import fresh_pair, run_on
from conformance.compare.programs import Step, valid
from conformance.compare.relations import NUMBERED, REFUSED_WHEN, RELATION_CLASS
from conformance.core.differences import refusal_in_text
from conformance.core.js import js_number_string, js_truthy
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.core.retest import COMPANIONS
from conformance.drivers.errors import DriverError
from conformance.report.model import Difference
from conformance.targets.specs import Target

LADDER: Final[tuple[int, ...]] = (1, 2, 3, 4, 6, 10, 16, 30, 60, 100, 300, 1000, 10**4, 10**6, 10**9,
                                  2**53 - 1)
"""The values a numbered field is sent along, whatever value the search found refused."""
ANCHORS: Final[tuple[int, int]] = (2, 10)
"""The values the other field is held at: a threshold moving from one to the other is a relation."""
MAX_STEPS: Final = 56
"""Bisection steps per anchor between the last accepted and the first refused value (exact below 2^53)."""
MAX_CANDIDATES: Final = 4
"""(field, refusing side) pairs re-tested per comparison, each kind."""
OPTIONAL: Final = ("isRevision", "revisesThought", "branchFromThought", "branchId", "needsMoreThoughts")
REFUSALS: Final = frozenset({"tool error", "protocol error"})
"""What a side answering otherwise than with an accepted result may have refused with."""

Verdict = bool | None
"""Accepted (True), refused (False: an isError result or a JSON-RPC error), or no answer at all (None)."""


@dataclass(frozen=True)
class PairRule:
    """A rule between `field` and `other` under which only `refused_by` refuses: `rule` as said after
    "refuses", `evidence` the calls that show it, `breaks` whether a call's arguments break it."""

    field: str
    other: str
    refused_by: str
    rule: str
    evidence: str
    breaks: Callable[[dict[str, JSON]], bool]
    words: str = ""
    """The lead refusal's words, when only refusals in those words are the rule's (both-set rules)."""

    @property
    def value_class(self) -> str:
        return f"{RELATION_CLASS}: {self.rule}{RETESTED}{self.evidence}"


def refusing_side(d: Difference) -> str:
    """"a" or "b": the side that refuses where the other accepts (an isError result or a JSON-RPC error
    against an accepted result); "" for any other difference."""
    if d.aspect == "is_error" and d.detail.startswith("refused by "):
        return d.detail.removeprefix("refused by ")
    if d.aspect == "error_class":
        ka, _, kb = d.detail.partition(" vs ")
        if ka == "tool result" and kb in REFUSALS:
            return "b"
        if kb == "tool result" and ka in REFUSALS:
            return "a"
    return ""


def _verdict(outcome: Outcome) -> Verdict:
    if outcome.kind == "result":
        return not outcome.is_error
    return False if outcome.kind == "protocol error" else None


def _number(value: JSON | None) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


# -- a ratio or an offset between two numbered fields ------------------------------------------------------


def ratio_candidates(differences: Sequence[Difference], calls: dict[str, JSON | None]
                     ) -> list[tuple[str, str]]:
    """(numbered field, refusing side) of one-side refusals of a number not yet explained, whose call gives
    another numbered field a number too."""
    out: list[tuple[str, str]] = []
    for d in differences:
        side, call = refusing_side(d), calls.get(d.id)
        if not side or d.field not in NUMBERED or ":" in d.value_class or not isinstance(call, dict):
            continue
        if _number(call.get(d.field)) is None:
            continue
        if not any(_number(call.get(g)) is not None for g in NUMBERED if g != d.field):
            continue
        if (d.field, side) not in out:
            out.append((d.field, side))
    return out[:MAX_CANDIDATES]


def _ratio_call(field: str, other: str, f: float, g: float) -> dict[str, JSON]:
    args = valid(thought=f"ratio {field} {other}") | {field: _json_number(f), other: _json_number(g)}
    for named in (field, other):
        companion = COMPANIONS.get(named)
        if companion is not None and companion[0] not in (field, other):
            args[companion[0]] = companion[1]
    return args


def _json_number(x: float) -> JSON:
    return int(x) if float(x).is_integer() and abs(x) < 2**53 else x


@dataclass(frozen=True)
class _Threshold:
    """At one anchor of the other field: the last value accepted and the first refused, `upper` when the
    refused values lie above the accepted ones."""

    anchor: int
    accepted: int
    refused: int
    upper: bool


Ask = Callable[[Sequence[dict[str, JSON]]], "tuple[list[Verdict], list[Verdict]] | None"]
"""Send each call; the refusing side's verdicts first, then the other side's."""


def _threshold(field: str, other: str, anchor: int, ask: Ask) -> _Threshold | None:
    seen = ask([_ratio_call(field, other, v, anchor) for v in LADDER])
    if seen is None or None in seen[0]:
        return None
    strict, lenient = seen
    kept = [(v, s) for v, s, ok in zip(LADDER, strict, lenient, strict=True) if ok]
    accepted = [v for v, s in kept if s]
    refused = [v for v, s in kept if not s]
    if not accepted or not refused:
        return None
    if min(refused) > max(accepted):
        lo, hi, upper = max(accepted), min(refused), True
    elif max(refused) < min(accepted):
        lo, hi, upper = max(refused), min(accepted), False
    else:
        return None  # refused on both sides of an accepted value: no one threshold
    for _ in range(MAX_STEPS):
        if hi - lo <= 1:
            break
        middle = (lo + hi) // 2
        step = ask([_ratio_call(field, other, middle, anchor)])
        if step is None or step[0][0] is None or not step[1][0]:
            return None
        if step[0][0] == upper:
            lo = middle
        else:
            hi = middle
    if hi - lo > 1:
        return None
    return _Threshold(anchor, lo if upper else hi, hi if upper else lo, upper)


def _law(one: _Threshold, two: _Threshold) -> tuple[str, Fraction, int] | None:
    """The relation two thresholds at two anchors of `G` obey, as (operator, factor, offset): `F` op
    factor × `G` + offset breaks it; None when the threshold does not move with `G`, or not by a constant
    factor or a constant offset."""
    if one.upper != two.upper or one.accepted == two.accepted:
        return None
    # The rule's edge is the last value accepted (">" / "<") or the first refused ("≥" / "≤"); a factor is
    # tried at both edges before an offset, so "≥ `G`" is said rather than "> `G` − 1".
    edges = ((one.accepted, two.accepted, True), (one.refused, two.refused, False))
    for a, b, strict in edges:
        k = Fraction(a, one.anchor)
        if k > 0 and Fraction(b, two.anchor) == k:
            return _op(one.upper, strict), k, 0
    for a, b, strict in edges:
        if b - two.anchor == a - one.anchor:
            return _op(one.upper, strict), Fraction(1), a - one.anchor
    return None


def _op(upper: bool, strict: bool) -> str:
    return (">" if strict else "≥") if upper else ("<" if strict else "≤")


def _said(op: str, k: Fraction, c: int, other: str) -> str:
    g = f"`{other}`" if k == 1 else f"{_fraction(k)} × `{other}`"
    return f"{op} {g}" + (f" {'+' if c > 0 else '−'} {abs(c)}" if c else "")


def _broken(op: str, f: float, edge: float) -> bool:
    return {">": f > edge, "≥": f >= edge, "<": f < edge, "≤": f <= edge}[op]


def _fraction(k: Fraction) -> str:
    return str(k.numerator) if k.denominator == 1 else js_number_string(float(k))


def find_ratio(a: Target, b: Target, field: str, refused_by: str, call: dict[str, JSON], timeout: float
               ) -> PairRule | None:
    """The ratio or offset to another numbered field `call` gives a number under which only `refused_by`
    refuses `field`, or None: `field` along LADDER with the other held at each of ANCHORS, on one fresh
    pair."""
    try:
        with fresh_pair(a, b, timeout) as (da, db):

            def ask(calls: Sequence[dict[str, JSON]]) -> tuple[list[Verdict], list[Verdict]] | None:
                steps = [Step(TOOL, c) for c in calls]
                oa, ob = run_on(da, steps), run_on(db, steps)
                if len(oa) != len(steps) or len(ob) != len(steps):
                    return None
                va, vb = [_verdict(o) for o in oa], [_verdict(o) for o in ob]
                return (va, vb) if refused_by == "a" else (vb, va)

            for other in (g for g in NUMBERED if g != field and _number(call.get(g)) is not None):
                found = [_threshold(field, other, w, ask) for w in ANCHORS]
                one, two = found
                if one is None or two is None:
                    continue
                law = _law(one, two)
                if law is None:
                    continue
                op, k, c = law
                rule = f"`{field}` {_said(op, k, c, other)}"
                evidence = (f"`{field}` {one.refused} with `{other}` {one.anchor} refused, {one.accepted} "
                            f"with {one.anchor} accepted; {two.refused} with {two.anchor} refused, "
                            f"{two.accepted} with {two.anchor} accepted")
                return PairRule(field, other, refused_by, rule, evidence, _breaks_numbers(field, other, law))
    except DriverError:
        return None
    return None


def _breaks_numbers(field: str, other: str, law: tuple[str, Fraction, int]
                    ) -> Callable[[dict[str, JSON]], bool]:
    op, k, c = law

    def breaks(args: dict[str, JSON]) -> bool:
        f, g = _number(args.get(field)), _number(args.get(other))
        return f is not None and g is not None and _broken(op, f, float(k) * g + c)
    return breaks


# -- two optional fields not both set ----------------------------------------------------------------------


def both_set_candidates(differences: Sequence[Difference], calls: dict[str, JSON | None]
                        ) -> list[tuple[str, str, str]]:
    """(optional field, refusing side, lead difference id) of one-side refusals of an optional field not yet
    explained, whose call sets another optional field besides the one it goes with."""
    out: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for d in differences:
        side, call = refusing_side(d), calls.get(d.id)
        if d.aspect != "is_error" or not side or d.field not in OPTIONAL or ":" in d.value_class:
            continue
        if not isinstance(call, dict) or not _others(d.field, call) or (d.field, side) in seen:
            continue
        seen.add((d.field, side))
        out.append((d.field, side, d.id))
    return out[:MAX_CANDIDATES]


def _group(field: str) -> tuple[str, ...]:
    companion = COMPANIONS.get(field)
    return (field, companion[0]) if companion is not None else (field,)


def _others(field: str, call: dict[str, JSON]) -> list[str]:
    """The optional fields `call` sets (truthy) beyond `field` and the field it goes with."""
    return [g for g in OPTIONAL if g not in _group(field) and js_truthy(call.get(g))]


def _without(call: dict[str, JSON], fields: Sequence[str]) -> dict[str, JSON]:
    return {k: v for k, v in call.items() if k not in fields}


def find_both_set(a: Target, b: Target, field: str, refused_by: str, call: dict[str, JSON], words: str,
                  timeout: float) -> PairRule | None:
    """The other optional field `field` may not be set beside, under which only `refused_by` refuses `call`:
    the call refused, accepted without that field (and the one it goes with) and accepted without `field`
    (and its own), the other side accepting all three; None otherwise. One fresh pair per field tried."""
    for other in _others(field, call):
        calls = [call, _without(call, _group(other)), _without(call, _group(field))]
        try:
            with fresh_pair(a, b, timeout) as (da, db):
                steps = [Step(TOOL, c) for c in calls]
                oa, ob = run_on(da, steps), run_on(db, steps)
        except DriverError:
            return None
        if len(oa) != 3 or len(ob) != 3:
            return None
        strict, lenient = (oa, ob) if refused_by == "a" else (ob, oa)
        if not all(_verdict(o) for o in lenient):
            continue
        if [_verdict(o) for o in strict] != [False, True, True]:
            continue
        rule = f"`{field}` and `{other}` both set"
        evidence = (f"with {_shown(call, field)} and {_shown(call, other)} refused, without `{other}` "
                    f"accepted, without `{field}` accepted")

        def breaks(args: dict[str, JSON], other: str = other) -> bool:
            return js_truthy(args.get(field)) and js_truthy(args.get(other))

        return PairRule(field, other, refused_by, rule, evidence, breaks, words)
    return None


def _shown(call: dict[str, JSON], name: str) -> str:
    return f"`{name}` {json.dumps(call.get(name), ensure_ascii=False)[:40]}"


# -- a value refused only where two numbered fields stand in an order ---------------------------------------


def conditional_candidates(differences: Sequence[Difference], calls: dict[str, JSON | None]
                           ) -> list[tuple[str, str, str]]:
    """(field, refusing side, lead difference id) of one-side refusals of a field other than the numbered
    ones, not yet explained, whose call gives two numbered fields numbers."""
    out: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for d in differences:
        side, call = refusing_side(d), calls.get(d.id)
        if d.aspect != "is_error" or not side or not d.field or d.field in NUMBERED or ":" in d.value_class:
            continue
        if not isinstance(call, dict) or len(_numbered_pairs(d.field, call)) == 0 or (d.field, side) in seen:
            continue
        seen.add((d.field, side))
        out.append((d.field, side, d.id))
    return out[:MAX_CANDIDATES]


def _numbered_pairs(field: str, call: dict[str, JSON]) -> list[tuple[str, str]]:
    given = [g for g in NUMBERED if g != field and _number(call.get(g)) is not None]
    return [(p, q) for i, p in enumerate(given) for q in given[i + 1:]]


def _flipped(value: JSON) -> JSON | None:
    """The value beside `value` a field's check may treat otherwise: a boolean's other value, else None."""
    return (not value) if isinstance(value, bool) else None


def _at(call: dict[str, JSON], p: str, q: str, pv: int, qv: int) -> dict[str, JSON]:
    out = {**call, p: pv, q: qv}
    for name in ("revisesThought", "branchFromThought"):
        if name in call and name not in (p, q):
            out[name] = 1
    return out


def find_conditional(a: Target, b: Target, field: str, refused_by: str, call: dict[str, JSON],
                     words: str, timeout: float) -> PairRule | None:
    """The order between two numbered fields under which only `refused_by` refuses `field` as `call` gives it
    (held-out-multi-10's plan-keeper: `nextThoughtNeeded` false refused below `totalThoughts`), or None: the
    call sent with the second field at 3 and then 7 and the first one below, equal and above it; the
    refusing side's pattern the same at both and the other side accepting all six, then `field`'s other
    value sent where it was refused, accepted. One fresh pair."""
    value = call.get(field)
    other_value = _flipped(value)
    if other_value is None:
        return None
    try:
        with fresh_pair(a, b, timeout) as (da, db):
            for p, q in _numbered_pairs(field, call):
                calls = [_at(call, p, q, w + d, w) for w in (3, 7) for d in (-1, 0, 1)]
                steps = [Step(TOOL, c) for c in calls]
                oa, ob = run_on(da, steps), run_on(db, steps)
                if len(oa) != len(steps) or len(ob) != len(steps):
                    return None
                strict, lenient = (oa, ob) if refused_by == "a" else (ob, oa)
                if not all(_verdict(o) for o in lenient):
                    continue
                verdicts = [_verdict(o) for o in strict]
                if None in verdicts:
                    return None
                seen = [tuple(bool(v) for v in verdicts[i:i + 3]) for i in (0, 3)]
                if seen[0] != seen[1] or seen[0] not in REFUSED_WHEN:
                    continue
                op = REFUSED_WHEN[seen[0]]
                at = next(i for i, ok in enumerate(seen[0]) if not ok)
                refused_call, accepted_call = calls[at], calls[seen[0].index(True)]
                flip = [Step(TOOL, {**refused_call, field: other_value})]
                fa, fb = run_on(da, flip), run_on(db, flip)
                if len(fa) != 1 or len(fb) != 1 or not (_verdict(fa[0]) and _verdict(fb[0])):
                    continue
                shown = json.dumps(value)
                rule = f"`{field}` {shown} when `{p}` {op} `{q}`"
                evidence = (f"{shown} with `{p}` {refused_call[p]} and `{q}` {refused_call[q]} refused, with "
                            f"{accepted_call[p]} and {accepted_call[q]} accepted; {json.dumps(other_value)} "
                            f"with {refused_call[p]} and {refused_call[q]} accepted")

                def breaks(args: dict[str, JSON], p: str = p, q: str = q, op: str = op) -> bool:
                    f, g = _number(args.get(p)), _number(args.get(q))
                    return (args.get(field) == value and f is not None and g is not None
                            and _ordered(op, f, g))

                return PairRule(field, q, refused_by, rule, evidence, breaks, words)
    except DriverError:
        return None
    return None


def _ordered(op: str, f: float, g: float) -> bool:
    return {"≥": f >= g, ">": f > g, "<": f < g, "≤": f <= g, "=": f == g, "≠": f != g}[op]


def explained_by(d: Difference, rule: PairRule, arguments: JSON | None) -> bool:
    """Whether `d` is a refusal of the rule's field by its side whose call breaks the rule (in the lead
    refusal's words, for a rule that carries them)."""
    if d.field != rule.field or refusing_side(d) != rule.refused_by or not isinstance(arguments, dict):
        return False
    if rule.words and refused_words(d) != rule.words:
        return False
    return rule.breaks(arguments)


def refused_words(d: Difference) -> str:
    """The refusing side's words of a one-side refusal."""
    return refusal_in_text(d.a if refusing_side(d) == "a" else d.b).words


__all__ = [
    "PairRule",
    "both_set_candidates",
    "conditional_candidates",
    "explained_by",
    "find_both_set",
    "find_conditional",
    "find_ratio",
    "ratio_candidates",
    "refused_words",
    "refusing_side",
]
