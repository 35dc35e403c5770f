"""A number one side refuses only where it stands in a relation to another numbered field (`revisesThought` ≥
`thoughtNumber`), found by re-testing: the one finder `compare` marks its differences with and `run`'s
evidence names a cause's rule by (issue 42: `run` said "refuses `revisesThought` given as an integer" where
`compare` found the rule).

For a field F one side refuses, each other numbered field G is set to an anchor w and F to w−1, w and w+1, at
two anchors, on one fresh pair (through the caller's `Ask`, core/retest.py): a relation is claimed only when
the refusing side's pattern over (below, equal, above) is the same at both anchors, is neither all refused nor
all accepted, and the other side accepts every call. A threshold on F's own value gives different patterns at
the two anchors, so it is never read as a relation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from conformance.core.differences import refusal
from conformance.core.jsontypes import JSON
from conformance.core.retest import COMPANIONS, RETESTED, Arguments, Ask, accepted

NUMBERED: Final = ("thoughtNumber", "totalThoughts", "revisesThought", "branchFromThought")
ANCHORS: Final = (3, 7)
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
    """`field` refused by `refused_by` ("a" or "b") where it stands `refused_when` to `other`; `refused` and
    `accepted`, (F, G) values of one anchor that show it."""

    field: str
    other: str
    refused_when: str
    refused_by: str
    refused: tuple[int, int] = (0, 0)
    accepted: tuple[int, int] = (0, 0)
    words: str = ""
    """The refusing side's words for the refused call shown: a rule is the one behind a refusal only when
    that refusal is in these words (a fork's other rule refusing the same field reads otherwise)."""

    def holds(self, f: float, g: float) -> bool:
        return {"≥": f >= g, ">": f > g, "<": f < g, "≤": f <= g, "=": f == g, "≠": f != g}[self.refused_when]

    @property
    def rule(self) -> str:
        """"`revisesThought` ≥ `thoughtNumber`": what the refusing side refuses."""
        return f"`{self.field}` {self.refused_when} `{self.other}`"

    @property
    def shown(self) -> str:
        """The pair of calls that shows the rule: "3 with 3 refused, 2 with 3 accepted"."""
        (rf, rg), (af, ag) = self.refused, self.accepted
        return f"{rf} with {rg} refused, {af} with {ag} accepted"


def relation_calls(field: str, other: str) -> list[Arguments]:
    """The six calls that try `field` against `other`: w−1, w, w+1 at each anchor w."""
    out: list[Arguments] = []
    for w in ANCHORS:
        for v in (w - 1, w, w + 1):
            args: dict[str, JSON] = {"thought": f"relation {field} {v} {other} {w}", "thoughtNumber": 1,
                                     "totalThoughts": 1, "nextThoughtNeeded": False, other: w, field: v}
            # Each field with the field it goes with: a side refusing `branchFromThought` without `branchId`
            # would read as refusing every value.
            for named in (field, other):
                companion = COMPANIONS.get(named)
                if companion is not None and companion[0] not in (field, other):
                    args[companion[0]] = companion[1]
            if "totalThoughts" not in (field, other):
                args["totalThoughts"] = max(ANCHORS) + 1
            out.append(args)
    return out


def relation_retested(field: str, refused_by: str, ask: Ask) -> Relation | None:
    """The relation to another numbered field under which only `refused_by` refuses `field`, or None. Every
    other field's calls go on one fresh pair, in `NUMBERED` order; the first relation found is the rule."""
    if field not in NUMBERED or refused_by not in ("a", "b"):
        return None
    others = [o for o in NUMBERED if o != field]
    calls = [c for other in others for c in relation_calls(field, other)]
    answered = ask(calls)
    if answered is None:
        return None
    for i, other in enumerate(others):
        part = slice(6 * i, 6 * i + 6)
        sides = [[accepted(r) for r in answers[part]] for answers in answered]
        if any(len(side) != 6 for side in sides):
            return None
        refusing = answered[0][part] if refused_by == "a" else answered[1][part]
        strict, lenient = (sides[0], sides[1]) if refused_by == "a" else (sides[1], sides[0])
        if not all(lenient):
            continue
        seen = [tuple(strict[j:j + 3]) for j in (0, 3)]
        if seen[0] == seen[1] and seen[0] in REFUSED_WHEN:
            w = ANCHORS[0]
            values = (w - 1, w, w + 1)
            at = seen[0].index(False)
            refused = values[at]
            accepted_ = values[seen[0].index(True)]
            found = refusal(refusing[at])
            return Relation(field, other, REFUSED_WHEN[seen[0]], refused_by, (refused, w), (accepted_, w),
                            found.words if found is not None else "")
    return None


def said(relation: Relation, refusing: str, other: str) -> str:
    """The rule as a headline says it: "this server refuses `revisesThought` ≥ `thoughtNumber`, which the
    original accepts (re-tested on fresh calls: 3 with 3 refused, 2 with 3 accepted)"."""
    return f"{refusing} refuses {relation.rule}, which {other} accepts ({RETESTED}: {relation.shown})"


__all__ = ["ANCHORS", "NUMBERED", "REFUSED_WHEN", "Relation", "relation_calls", "relation_retested", "said"]
