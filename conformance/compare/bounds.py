"""The rule behind a refused value, found by re-testing in-range values, not read off the value's type class.

"head refuses `totalThoughts` given as a fraction" is false when head accepts 1.5 and refuses only what is
below 1; "`branchId` given as a string" says nothing when only labels past 256 characters are refused. For a
field one side refuses a number (or a string) for, the refusing call is sent again on a fresh pair with
that field set to a ladder of values (numbers from −1 to 10⁶, fractions among them; strings of plain letters
from 1 to 4,096 characters and as long as the one refused), then bisected between the last refused and the
first accepted. A bound is claimed only when every refused value lies on one side of every accepted one,
the other side accepts every value the refusing side refused, and the value first refused is past it.

A length found with one-byte letters says nothing of its unit: "4096 characters" is false of a fork that
counts 4096 bytes of UTF-8 (1,366 CJK characters refused; held-out-multi-11's notebook). A longest-accepted
length is re-tested with two-byte and four-byte characters (UNIT_CHARS) and said in the unit that holds:
bytes of UTF-8, UTF-16 code units (JavaScript's `length`) or characters (code points).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from conformance.compare.observe import Outcome
from conformance.compare.pair import fresh_pair, run_on
from conformance.compare.programs import Step
from conformance.compare.text_kinds import RETESTED, KindRule, kind_refused, of_its_kind
from conformance.core.js import js_number_string, utf16_length
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers.errors import DriverError
from conformance.report.model import Difference
from conformance.targets.specs import Target

BOUND_CLASS: Final = "bound"
"""The value class of a refusal a bound explains (`Difference.value_class` reads "bound: `F` below 1;
re-tested: …")."""
NUMBERS: Final[tuple[float, ...]] = (-1, 0, 0.5, 1, 1.5, 2, 2.5, 3, 10, 1000, 1_000_000)
LENGTHS: Final[tuple[int, ...]] = (1, 16, 64, 255, 256, 257, 1024, 4096)
BISECTIONS: Final = 12
"""Steps between the last refused and the first accepted length (exact up to 4,096)."""
NUMBER_BISECTIONS: Final = 4
"""Halvings between the last refused and the first accepted number once they are integers one apart (or were
never integers): within a sixteenth of that gap."""
UNIT_CHARS: Final = ("é", "😀")
"""Characters of two bytes of UTF-8 and one UTF-16 unit, and of four bytes and two units (both one code
point), repeated to re-test the unit of a length bound."""
BYTES: Final = "bytes of UTF-8"
UNITS: Final = "UTF-16 code units"
CHARACTERS: Final = "characters"
MAX_FIELDS: Final = 8
"""(field, refusing side) pairs re-tested per comparison."""
NUMERIC_CLASSES: Final = frozenset({"fraction", "negative number", "zero", "integer", "number beyond 2^53"})


Ask = Callable[[Sequence[float]], "tuple[list[bool], list[bool]] | None"]
"""Send the call with the field set to each value; each side's acceptances (refusing side first)."""
TextAsk = Callable[[Sequence[JSON]], "tuple[list[bool], list[bool]] | None"]
"""The same, the field set to each value as given (a string of wider characters)."""


@dataclass(frozen=True)
class Bound:
    field: str
    refused_by: str
    """"a" or "b"."""
    below: float | None
    """Values below this are refused (numbers), or strings shorter than this many characters."""
    above: float | None
    """Values above this are refused (numbers), or strings longer than this many characters."""
    length: bool
    refused: tuple[float, ...]
    accepted: tuple[float, ...]
    both: tuple[float, ...] = ()
    """Values of the ladder both sides refuse (left out of the bound)."""
    settled: dict[str, JSON] = dataclasses.field(default_factory=dict)
    """Fields of the refusing call changed for the re-test (`settled`), with their values."""
    unit: str = CHARACTERS
    """What a length counts (CHARACTERS, UNITS or BYTES), as re-tested with wider characters."""
    unit_evidence: str = ""
    """The wider characters' re-test, said ("2049 “é” (4098 bytes) refused, 2048 (4096 bytes) accepted")."""

    def holds(self, value: JSON) -> bool:
        """Whether `value` breaks the bound (is refused under it)."""
        x = _measure(value, self.length, self.unit)
        if x is None:
            return False
        return (self.below is not None and x < self.below) or (self.above is not None and x > self.above)

    @property
    def rule(self) -> str:
        name = f"`{self.field}`"
        unit = f" {self.unit}" if self.length else ""
        parts = []
        if self.below is not None:
            parts.append(f"shorter than {_n(self.below)}{unit}" if self.length else f"below {_n(self.below)}")
        if self.above is not None:
            parts.append(f"longer than {_n(self.above)}{unit}" if self.length else f"above {_n(self.above)}")
        return f"{name} {' or '.join(parts)}"

    @property
    def value_class(self) -> str:
        unit = " characters" if self.length else ""
        shown = [*self.refused, *self.accepted]
        evidence = (f"{_list(self.refused, unit)} refused, {_list(self.accepted, unit)} accepted"
                    if shown else "")
        if self.both:
            evidence += f" (both refuse {_list(self.both, unit)})"
        if self.unit_evidence:
            evidence += ", " + self.unit_evidence
        if self.settled:
            evidence += " with " + " and ".join(f"`{k}` {json.dumps(v)}" for k, v in self.settled.items())
        return f"{BOUND_CLASS}: {self.rule}{RETESTED}{evidence}"


def _n(x: float) -> str:
    return js_number_string(x)


def _list(values: Sequence[float], unit: str) -> str:
    said = [_n(v) for v in values]
    text = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    return text + unit


def _measure(value: JSON, length: bool, unit: str = CHARACTERS) -> float | None:
    if length:
        if not isinstance(value, str):
            return None
        if unit == BYTES:
            return float(len(value.encode("utf-8", "surrogatepass")))
        return float(utf16_length(value) if unit == UNITS else len(value))
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def candidates(differences: Sequence[Difference], arguments: dict[str, JSON | None]
               ) -> list[tuple[str, str, str]]:
    """(field, refusing side, "number" or "string") of refusals of a number or a non-empty string by one
    side, not yet explained by a relation or a bound; `arguments` maps a difference's id to its last call's
    arguments. A label refused as an integer and one refused for its length are two candidates."""
    out: list[tuple[str, str, str]] = []
    for d in differences:
        if d.aspect != "is_error" or not d.field or ":" in d.value_class:
            continue
        args = arguments.get(d.id)
        sent = args.get(d.field) if isinstance(args, dict) else None
        numeric = d.value_class in NUMERIC_CLASSES and _measure(sent, False) is not None
        text = d.value_class == "string" and isinstance(sent, str) and sent != ""
        key = (d.field, d.detail.removeprefix("refused by "), "number" if numeric else "string")
        if (numeric or text) and key not in out:
            out.append(key)
    return out[:MAX_FIELDS]


def find_bound(a: Target, b: Target, field: str, refused_by: str, call: dict[str, JSON], timeout: float
               ) -> Bound | KindRule | None:
    """The bound under which only `refused_by` refuses `field` in `call` (its other fields kept), or None.
    When the refusing side accepts no value of the ladder in `call` (it breaks another rule too: a branch
    from thought 1 at thought 1), the ladder is sent again in `settled(call)`, which keeps the usual rules
    between the numbered fields. A string witness of other characters than letters is re-tested in its own
    characters too (`text_kinds`): refused at lengths whose letters are accepted, its kind is the rule."""
    sent = call.get(field)
    length = isinstance(sent, str)
    x = _measure(sent, length)
    if x is None or (length and x > max(LENGTHS) * 4):
        return None
    ladder = sorted({*(float(n) for n in (LENGTHS if length else NUMBERS)), x})
    try:
        with fresh_pair(a, b, timeout) as (da, db):
            for base in dict.fromkeys(map(_frozen, (call, settled(call, field)))):
                args = dict(base)

                def ask_texts(texts: Sequence[JSON], args: dict[str, JSON] = args
                              ) -> tuple[list[bool], list[bool]] | None:
                    steps = [Step(TOOL, {**args, field: text}) for text in texts]
                    oa, ob = run_on(da, steps), run_on(db, steps)
                    if len(oa) != len(steps) or len(ob) != len(steps) or not all(map(_answered, oa + ob)):
                        return None
                    strict, lenient = (oa, ob) if refused_by == "a" else (ob, oa)
                    return [o.accepted for o in strict], [o.accepted for o in lenient]

                def ask(values: Sequence[float], ask_texts: TextAsk = ask_texts
                        ) -> tuple[list[bool], list[bool]] | None:
                    return ask_texts([_value(v, length, sent) for v in values])

                seen = ask(ladder)
                if seen is None:
                    return None
                strict, lenient = seen
                if not any(strict):
                    continue
                # A value both sides refuse (0 to a falsy guard on both) says nothing about this difference.
                both = [v for v, s, ok in zip(ladder, strict, lenient, strict=True) if not s and not ok]
                kept = [(v, s) for v, s, ok in zip(ladder, strict, lenient, strict=True) if ok]
                bound = _bisected([v for v, _ in kept], [s for _, s in kept], field, refused_by, length, x,
                                  ask)
                if bound is not None:
                    changed = tuple(k for k in args if k != field and args[k] != call.get(k))
                    bound = dataclasses.replace(bound, both=tuple(both),
                                                settled={k: args[k] for k in changed})
                    bound = _in_its_unit(bound, ask_texts) if length else bound
                if isinstance(sent, str) and of_its_kind(sent):
                    kind = kind_refused(field, refused_by, sent, ask_texts, _kind_lengths(bound, sent))
                    if kind is not None:
                        return kind
                return bound
    except DriverError:
        return None
    return None


def _in_its_unit(bound: Bound, ask: TextAsk) -> Bound:
    """A length bound re-tested with wider characters (UNIT_CHARS) and said in the unit that holds; an upper
    bound (`_above_in_its_unit`) or, without one, a lower bound (`_below_in_its_unit`). Any other answer, or
    the other side refusing one of them, keeps the bound as found ("characters", unconfirmed beyond one-byte
    letters)."""
    if bound.above is not None:
        return _above_in_its_unit(bound, ask)
    if bound.below is not None:
        return _below_in_its_unit(bound, ask)
    return bound


def _above_in_its_unit(bound: Bound, ask: TextAsk) -> Bound:
    """Longer than N one-byte characters refused: N two-byte ones refused, and N/2 accepted where N/2 + 1 is
    refused, it counts bytes of UTF-8; accepted, N four-byte ones (two UTF-16 units each) tell UTF-16 units
    (refused) from characters (accepted)."""
    if bound.above is None or bound.above < 2:
        return bound
    n = int(bound.above)
    two, four = UNIT_CHARS
    seen = ask([two * n, two * (n // 2), two * (n // 2 + 1), four * n])
    if seen is None or not all(seen[1]):
        return bound
    whole, half, past, wide = seen[0]
    if not whole and half and not past:
        said = (f"{n // 2 + 1} “{two}” ({2 * (n // 2 + 1)} bytes) refused, {n // 2} ({2 * (n // 2)} bytes) "
                f"accepted")
        return dataclasses.replace(bound, unit=BYTES, unit_evidence=said)
    if whole and not wide:
        said = f"{n} “{two}” accepted, {n} “{four}” ({2 * n} UTF-16 units) refused"
        return dataclasses.replace(bound, unit=UNITS, unit_evidence=said)
    if whole and wide:
        return dataclasses.replace(bound, unit_evidence=f"{n} “{two}” and {n} “{four}” accepted")
    return bound


def _below_in_its_unit(bound: Bound, ask: TextAsk) -> Bound:
    """Shorter than N one-byte characters refused (N ≥ 3): with h = ⌈N/2⌉, h two-byte characters (N or N + 1
    bytes, h code points and units) accepted where h − 1 of them are refused, it counts bytes of UTF-8; h
    two-byte ones refused, h four-byte ones (2h UTF-16 units) accepted tell UTF-16 units, refused too
    characters."""
    if bound.below is None or bound.below < 3:
        return bound
    n = int(bound.below)
    h = (n + 1) // 2
    two, four = UNIT_CHARS
    seen = ask([two * h, two * (h - 1), four * h])
    if seen is None or not all(seen[1]):
        return bound
    half, short, wide = seen[0]
    if half and not short:
        said = f"{h} “{two}” ({2 * h} bytes) accepted, {h - 1} ({2 * (h - 1)} bytes) refused"
        return dataclasses.replace(bound, unit=BYTES, unit_evidence=said)
    if not half and wide:
        said = f"{h} “{two}” refused, {h} “{four}” ({2 * h} UTF-16 units) accepted"
        return dataclasses.replace(bound, unit=UNITS, unit_evidence=said)
    if not half and not wide:
        return dataclasses.replace(bound, unit_evidence=f"{h} “{two}” and {h} “{four}” refused")
    return bound


def _kind_lengths(bound: Bound | None, witness: str) -> tuple[int, ...]:
    """Lengths in characters the witness's own characters are re-tested at: twice and sixteen times its
    own, and, past a bound found with letters, the shortest any unit counts as long enough (a character is
    at least one unit of each)."""
    at = [2 * len(witness), 16 * len(witness)]
    if bound is not None and bound.below is not None and bound.above is None:
        at.append(max(1, math.ceil(bound.below)))
    return tuple(at)


def _frozen(args: dict[str, JSON]) -> tuple[tuple[str, JSON], ...]:
    return tuple((k, v) for k, v in args.items())


def settled(call: dict[str, JSON], field: str) -> dict[str, JSON]:
    """`call` at thought 3 of 3, revising or branching from thought 1: what no rule between two numbered
    fields refuses (the field re-tested kept as it is)."""
    out = {**call, "thoughtNumber": 3, "totalThoughts": 3}
    for name in ("revisesThought", "branchFromThought"):
        if name in call:
            out[name] = 1
    if field in call:
        out[field] = call[field]
    return out


def _answered(outcome: Outcome) -> bool:
    return outcome.kind == "result"


def _value(v: float, length: bool, sent: JSON) -> JSON:
    if length:
        return "b" * int(v) if not (isinstance(sent, str) and len(sent) == int(v)) else sent
    return int(v) if float(v).is_integer() and abs(v) < 2**53 else v


def _bisected(ladder: list[float], strict: list[bool], field: str, refused_by: str, length: bool, x: float,
              ask: Ask) -> Bound | None:
    accepted = [v for v, ok in zip(ladder, strict, strict=True) if ok]
    refused = [v for v, ok in zip(ladder, strict, strict=True) if not ok]
    if not accepted or not refused:
        return None
    lo, hi = min(accepted), max(accepted)
    below = [v for v in refused if v < lo]
    above = [v for v in refused if v > hi]
    if len(below) + len(above) != len(refused):
        return None  # a refused value between accepted ones: no bound (fractions among integers, ...)
    low_bound = _narrow(max(below), lo, length, ask, up=True) if below else None
    high_bound = _narrow(min(above), hi, length, ask, up=False) if above else None
    if (below and low_bound is None) or (above and high_bound is None):
        return None
    shown_refused: list[float] = []
    shown_accepted: list[float] = []
    below_at = above_at = None
    if low_bound is not None:
        shown_refused.append(low_bound[0])
        shown_accepted.append(low_bound[1])
        below_at = low_bound[1]
    if high_bound is not None:
        shown_accepted.append(high_bound[0])
        shown_refused.append(high_bound[1])
        above_at = high_bound[0]
    extra = [v for v in accepted if v not in shown_accepted and (not length and not float(v).is_integer())]
    bound = Bound(field, refused_by, below_at, above_at, length, tuple(sorted(set(shown_refused))),
                  tuple(sorted({*shown_accepted, *extra[:1]})))
    return bound if bound.holds(_value(x, length, None)) else None


def _narrow(refused: float, accepted: float, length: bool, ask: Ask, *, up: bool
            ) -> tuple[float, float] | None:
    """Bisect between a refused and an accepted value (`up`: refused below accepted); the closest pair found
    as (lower, upper). Numbers are bisected over integers first while the two are integers more than one
    apart (a bound at 37 read between 10 and 1000 in four halvings was "below 71.875"), then by halves."""
    lower, upper = (refused, accepted) if up else (accepted, refused)
    whole = length or (float(lower).is_integer() and float(upper).is_integer())
    halvings = [*([True] * BISECTIONS if whole else []), *([False] * (0 if length else NUMBER_BISECTIONS))]
    for integer in halvings:
        if integer and upper - lower <= 1:
            continue
        middle = float((lower + upper) // 2) if integer else (lower + upper) / 2
        if middle in (lower, upper):
            break
        seen = ask([middle])
        if seen is None:
            return None
        ok = seen[0][0]
        if not seen[1][0] and not ok:
            return None  # the other side refuses it too: not this side's bound
        if ok == up:
            upper = middle
        else:
            lower = middle
    return lower, upper


def explained_by(d: Difference, bound: Bound | KindRule, arguments: JSON) -> bool:
    """Whether `d` (a refusal of the bound's field by its side) is a value past the bound."""
    if d.aspect != "is_error" or d.field != bound.field or d.detail != f"refused by {bound.refused_by}":
        return False
    return isinstance(arguments, dict) and bound.holds(arguments.get(bound.field))


def kind_of(value: JSON) -> str:
    """"number" or "string" as `candidates` names a refused value's kind; "" for any other."""
    if _measure(value, False) is not None:
        return "number"
    return "string" if isinstance(value, str) else ""


__all__ = ["BOUND_CLASS", "RETESTED", "Bound", "candidates", "explained_by", "find_bound", "kind_of"]
