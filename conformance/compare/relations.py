"""Cross-field rules found as such: a number refused by one side only where it stands in a relation to
another numbered field (`revisesThought` ≥ `thoughtNumber`), not by its own value.

For a field F one side refuses numbers for, each other numbered field G is set to an anchor w and F to
w−1, w and w+1, at two anchors, on a fresh pair: a relation is claimed only when the refusing side's
pattern over (below, equal, above) is the same at both anchors, is neither all refused nor all accepted,
and the other side accepts all six calls. A threshold on F's own value gives different patterns at the
two anchors, so it is never read as a relation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from conformance.compare.pair import fresh_pair, run_on
from conformance.compare.programs import Step, valid
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.core.retest import COMPANIONS
from conformance.drivers.errors import DriverError
from conformance.report.model import Difference
from conformance.targets.specs import Target

NUMBERED: Final = ("thoughtNumber", "totalThoughts", "revisesThought", "branchFromThought")
ANCHORS: Final = (3, 7)
RELATION_CLASS: Final = "relation"
"""The value class of a difference its call's relation between two fields explains (`Difference.value_class`
reads "relation: `F` ≥ `G`")."""
RETEST_CLASS: Final = "re-tested"
"""The value class of a refusal pair whose re-test (`compare/retests.py`) says what it is: "re-tested: KIND:
conclusion"."""
UNCHECKED_CLASS: Final = "unchecked"
"""The value class of a refusal the accepting side makes of no value at all: it does not check the field."""

REFUSED_WHEN: Final[dict[tuple[bool, bool, bool], str]] = {
    (True, False, False): "≥",
    (True, True, False): ">",
    (False, True, True): "<",
    (False, False, True): "≤",
    (True, False, True): "=",
    (False, True, False): "≠",
}
"""The refusing side's acceptance of F below, equal to and above G → the relation under which it refuses."""


@dataclass(frozen=True)
class Relation:
    field: str
    other: str
    refused_when: str
    refused_by: str
    """"a" or "b"."""

    def holds(self, f: float, g: float) -> bool:
        return {"≥": f >= g, ">": f > g, "<": f < g, "≤": f <= g, "=": f == g, "≠": f != g}[self.refused_when]

    @property
    def value_class(self) -> str:
        return f"{RELATION_CLASS}: `{self.field}` {self.refused_when} `{self.other}`"


def _calls(field: str, other: str) -> list[Step]:
    out = []
    for w in ANCHORS:
        for v in (w - 1, w, w + 1):
            args = valid(thought=f"relation {field} {v} {other} {w}") | {other: w, field: v}
            # Each field with the field it goes with: a side refusing `branchFromThought` without `branchId`
            # would read as refusing every value.
            for named in (field, other):
                companion = COMPANIONS.get(named)
                if companion is not None and companion[0] not in (field, other):
                    args[companion[0]] = companion[1]
            if "totalThoughts" not in (field, other):
                args["totalThoughts"] = max(ANCHORS) + 1
            out.append(Step(TOOL, args))
    return out


def find_relation(a: Target, b: Target, field: str, refused_by: str, timeout: float) -> Relation | None:
    """The relation to another numbered field under which only `refused_by` refuses `field`, or None."""
    try:
        with fresh_pair(a, b, timeout) as (da, db):
            for other in NUMBERED:
                if other == field:
                    continue
                steps = _calls(field, other)
                oa, ob = run_on(da, steps), run_on(db, steps)
                if len(oa) != len(steps) or len(ob) != len(steps):
                    return None
                strict, lenient = (oa, ob) if refused_by == "a" else (ob, oa)
                if not all(o.accepted for o in lenient):
                    continue
                seen = [tuple(o.accepted for o in strict[i:i + 3]) for i in range(0, len(steps), 3)]
                if len(set(seen)) == 1 and seen[0] in REFUSED_WHEN:
                    return Relation(field, other, REFUSED_WHEN[seen[0]], refused_by)
    except DriverError:
        return None
    return None


def _number(value: JSON) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def explained_by(d: Difference, relation: Relation, arguments: JSON) -> bool:
    """Whether `d` (a refusal of the relation's field by its side) is a call breaking the relation."""
    if d.aspect != "is_error" or d.field != relation.field or d.detail != f"refused by {relation.refused_by}":
        return False
    if not isinstance(arguments, dict):
        return False
    f, g = _number(arguments.get(relation.field)), _number(arguments.get(relation.other))
    return f is not None and g is not None and relation.holds(f, g)


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
    "RELATION_CLASS",
    "RETEST_CLASS",
    "UNCHECKED_CLASS",
    "Relation",
    "explained_by",
    "find_relation",
    "relation_candidates",
]
