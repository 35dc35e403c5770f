"""Cross-field rules found as such: a number refused by one side only where it stands in a relation to
another numbered field (`revisesThought` ≥ `thoughtNumber`), not by its own value.

For a field F one side refuses numbers for, each other numbered field G is set to an anchor w and F to
w−1, w and w+1, at two anchors, on a fresh pair: a relation is claimed only when the refusing side's
pattern over (below, equal, above) is the same at both anchors, is neither all refused nor all accepted,
and the other side accepts all six calls. A threshold on F's own value gives different patterns at the
two anchors, so it is never read as a relation. The finder is `core/relation.py`'s, which `run`'s evidence
uses too; this module marks `compare`'s differences with what it finds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from conformance.compare.pair import retested
from conformance.core.jsontypes import JSON
from conformance.core.relation import NUMBERED, REFUSED_WHEN, Relation, relation_retested
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
]
