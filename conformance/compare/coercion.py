"""Coercion explored across value classes: for a field one side converts from strings, what else it converts.

A side that accepts `"1"` for a number through a general conversion (zod's `z.coerce.number()` is
`Number(value)`) also accepts `true`, `[3]`, `"0x10"`, `"1e1"` and `" 2 "`; a search whose strategies
draw numeric strings rarely sends those. Each is sent on a fresh pair once the search shows a field
converted, and each class one side accepts and the other refuses is a difference of its own (its value
class named finer than the search's `string`, so each has its own id), confirmed on fresh processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from conformance.compare.observe import Found, Outcome, compare_step
from conformance.compare.pair import fresh_pair, replay_fresh, run_on
from conformance.compare.programs import Program, Step, valid
from conformance.compare.search import Candidate
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers.errors import DriverError
from conformance.report.model import Difference
from conformance.targets.specs import Target

NUMBERS: Final = ("thoughtNumber", "totalThoughts", "revisesThought", "branchFromThought")
BOOLEANS: Final = ("nextThoughtNeeded", "isRevision", "needsMoreThoughts")
EXPLORED: Final[dict[str, tuple[tuple[JSON, str], ...]]] = {
    "number": ((True, "boolean value"), ([3], "single-item array"), ("0x10", "hex string"),
               ("1e1", "exponent string"), (" 2 ", "padded numeric string")),
    "boolean": (("TRUE", "upper-case boolean string"), (" true", "padded boolean string"),
                (1, "number value"), ([True], "single-item array")),
}
"""Per kind of field, values a general conversion accepts and a type check refuses, with their class (named
apart from the search's classes, so `fixtures/attribution/rules.yaml` can group them with coercion)."""
CONVERTED: Final = frozenset({"numeric string", "boolean string"})


def converted_fields(differences: Sequence[Difference]) -> list[str]:
    """Fields whose acceptance differs for strings of their type because one side converts them (the
    attribution's `coercion`: the other refuses them as strings), not because of a rule on their value."""
    out: list[str] = []
    for d in differences:
        if (d.aspect == "is_error" and d.cause == "coercion" and d.value_class in CONVERTED
                and d.field in NUMBERS + BOOLEANS and d.field not in out):
            out.append(d.field)
    return out


def _programs(fields: Sequence[str]) -> list[tuple[Program, str]]:
    out: list[tuple[Program, str]] = []
    for fld in fields:
        kind = "number" if fld in NUMBERS else "boolean"
        for value, cls in EXPLORED[kind]:
            args = valid() | {fld: value}
            if fld == "revisesThought":
                args |= {"isRevision": True, "thoughtNumber": 3, "totalThoughts": 3}
            if fld == "branchFromThought":
                args |= {"branchId": "explored", "thoughtNumber": 3, "totalThoughts": 3}
            out.append(((Step(TOOL, args),), cls))
    return out


def _acceptance(program: Program, seen: tuple[list[Outcome], list[Outcome]], cls: str) -> Found | None:
    oa, ob = seen
    if len(oa) != 1 or len(ob) != 1:
        return None
    for found in compare_step(program[0], oa[0], ob[0]):
        if found.aspect in ("is_error", "error_class"):
            return replace(found, type_class=cls)
    return None


def explore(a: Target, b: Target, fields: Sequence[str], known: set[str], timeout: float) -> list[Candidate]:
    """Each explored value of each field on one fresh pair; the classes accepted by one side only that no
    difference already names, each replayed alone on a fresh pair and kept if it shows again."""
    programs = _programs(fields)
    if not programs:
        return []
    try:
        with fresh_pair(a, b, timeout) as (da, db):
            seen = [(p, cls, _acceptance(p, (run_on(da, p), run_on(db, p)), cls)) for p, cls in programs]
    except DriverError:
        return []
    out: list[Candidate] = []
    for program, cls, found in seen:
        if found is None or found.signature in known:
            continue
        try:
            again = _acceptance(program, replay_fresh(a, b, program, timeout), cls)
        except DriverError:
            continue
        if again is not None and again.signature == found.signature:
            known.add(found.signature)
            out.append(Candidate(again, program, True))
    return out


__all__ = ["EXPLORED", "converted_fields", "explore"]
