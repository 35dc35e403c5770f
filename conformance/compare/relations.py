"""Cross-field rules found as such: a number refused by one side only where it stands in a relation to
another numbered field (`revisesThought` ≥ `thoughtNumber`), not by its own value.

For a field F one side refuses numbers for, each other numbered field G is set to an anchor w and F to
w−1, w and w+1, at two anchors, on a fresh pair: a relation is claimed only when the refusing side's
pattern over (below, equal, above) is the same at both anchors, is neither all refused nor all accepted,
and the other side accepts all six calls. A threshold on F's own value gives different patterns at the
two anchors, so it is never read as a relation. The finder is `core/relation.py`'s, which `run`'s evidence
uses too; this module marks `compare`'s differences with what it finds. The relation is found with numbers: a
refused value of another type (a numeric string) is said as the relation only when the same call with the
relation made to hold is accepted (PR #3007's head refuses `branchFromThought` "1" for its type, whatever
`thoughtNumber` is).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from conformance.compare.pair import fresh_pair, retested, run_on
from conformance.compare.programs import Step
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.core.relation import NUMBERED, REFUSED_WHEN, Relation, relation_retested
from conformance.drivers.errors import DriverError
from conformance.report.model import Difference
from conformance.targets.specs import Target

RELATION_CLASS: Final = "relation"
"""The value class of a difference its call's relation between two fields explains (`Difference.value_class`
reads "relation: `F` ≥ `G`")."""
RETEST_CLASS: Final = "re-tested"
"""The value class of a refusal pair whose re-test (`compare/retests.py`) says what it is: "re-tested: KIND:
conclusion"."""
UNCHECKED_CLASS: Final = "unchecked"
"""The value class of a refusal the accepting side makes of no value at all: it does not check the field."""


def relation_class(relation: Relation) -> str:
    """The value class a difference the relation explains is marked with."""
    return f"{RELATION_CLASS}: {relation.rule}"


def find_relation(a: Target, b: Target, field: str, refused_by: str, timeout: float) -> Relation | None:
    """The relation to another numbered field under which only `refused_by` refuses `field`, or None: the
    finder `run`'s evidence uses too (`core/relation.py`), on a fresh pair of `a` and `b`."""
    return relation_retested(field, refused_by, retested(a, b, timeout))


def _number(value: JSON | None) -> float | None:
    """A JSON number's value; None for any other type, a numeric string too (the relation was found with
    numbers, so only a number is known to meet it as one)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _numeric_string(value: JSON | None) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        x = float(value)
    except ValueError:
        return None
    return x if x == x and abs(x) != float("inf") else None


def _breaks(d: Difference, relation: Relation, arguments: JSON | None,
            read: Callable[[JSON | None], float | None]) -> bool:
    if d.aspect != "is_error" or d.field != relation.field or d.detail != f"refused by {relation.refused_by}":
        return False
    if not isinstance(arguments, dict):
        return False
    f, g = read(arguments.get(relation.field)), _number(arguments.get(relation.other))
    return f is not None and g is not None and relation.holds(f, g)


def explained_by(d: Difference, relation: Relation, arguments: JSON | None) -> bool:
    """Whether `d` (a refusal of the relation's field by its side) is a call whose numbers break the
    relation."""
    return _breaks(d, relation, arguments, _number)


def string_candidate(d: Difference, relation: Relation, arguments: JSON | None) -> bool:
    """Whether `d` is a refusal of the field given as a numeric string that breaks the relation read as a
    number: the relation explains it only if a re-test shows it (`strings_explained`)."""
    return _breaks(d, relation, arguments, _numeric_string)


_HOLDING: Final[dict[str, int]] = {"≥": 1, ">": 0, "<": -1, "≤": -1, "=": 1, "≠": 0}
"""The offset from F's value that puts G where the relation holds (F ≥ G refused: G = F + 1 accepted)."""


def _held(relation: Relation, call: dict[str, JSON]) -> dict[str, JSON] | None:
    """`call` with the other field moved so that the relation holds no more, the refused value kept; None
    when that would take the other field below 1."""
    f = _numeric_string(call.get(relation.field))
    if f is None or not f.is_integer():
        return None
    g = int(f) + _HOLDING[relation.refused_when]
    if g < 1 or abs(g) >= 2**53:
        return None
    moved = dict(call) | {relation.other: g}
    if relation.other == "thoughtNumber" and isinstance(moved.get("totalThoughts"), int | float):
        moved["totalThoughts"] = max(g, moved["totalThoughts"])  # type: ignore[type-var]
    return moved


def strings_explained(a: Target, b: Target, relation: Relation, calls: Sequence[dict[str, JSON]],
                      timeout: float) -> list[bool]:
    """For each call refusing a numeric string that breaks the relation read as a number: whether the
    refusing side accepts the same call once the other field is moved so the relation holds (then the string
    was read as a number and refused by the relation; still refused, it was refused for what it is). One
    fresh pair for all; a call that cannot be moved, or a side that fails, is not explained."""
    held = [_held(relation, c) for c in calls]
    steps = [Step(TOOL, h) for h in held if h is not None]
    if not steps:
        return [False] * len(calls)
    try:
        with fresh_pair(a, b, timeout) as (da, db):
            strict = run_on(da if relation.refused_by == "a" else db, steps)
    except DriverError:
        return [False] * len(calls)
    accepted = iter([o.accepted for o in strict] + [False] * (len(steps) - len(strict)))
    return [h is not None and next(accepted) for h in held]


def relation_candidates(differences: Sequence[Difference]) -> list[tuple[str, str]]:
    """(field, refusing side) of the acceptance differences on numbered fields given numbers."""
    out: list[tuple[str, str]] = []
    for d in differences:
        if d.aspect == "is_error" and d.field in NUMBERED and d.value_class in ("integer", "numeric string"):
            key = (d.field, d.detail.removeprefix("refused by "))
            if key not in out:
                out.append(key)
    return out


__all__ = [
    "NUMBERED",
    "REFUSED_WHEN",
    "RELATION_CLASS",
    "RETEST_CLASS",
    "UNCHECKED_CLASS",
    "Relation",
    "explained_by",
    "find_relation",
    "relation_candidates",
    "relation_class",
    "string_candidate",
    "strings_explained",
]
