"""The kind of characters a refused string is made of, and a rule over that kind rather than a length.

A refusal of "\\t" re-tested with letters read "`thought` shorter than 2 characters; 1 refused, 2
accepted" where the fork accepts "x" and refuses only whitespace (held-out-multi-14's typed-arguments): a
rule found by re-testing holds only for values of the witness's kind. The witness's own characters,
repeated to a length the rule accepts, tell a length from a kind; a kind refused at every length where
letters of the same lengths are accepted is said as that kind ("made only of whitespace").
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from conformance.core.jsontypes import JSON
from conformance.core.printable import safe

KIND_CLASS: Final = "kind"
"""The value class of a refusal a kind rule explains ("kind: `thought` made only of whitespace; …")."""
RETESTED: Final = "; re-tested: "
JS_SPACE: Final = frozenset("\ufeff")
"""Whitespace to JavaScript's `trim` that Python's `isspace` leaves out (the byte-order mark)."""
SAID: Final = {
    "whitespace": "whitespace",
    "control": "control or format characters",
    "letter": "letters",
    "digit": "digits",
    "mark": "combining marks",
    "symbol": "punctuation or symbols",
    "surrogate": "unpaired surrogates",
    "other": "unassigned or private-use characters",
}
"""Each category of `categories`, as a headline says it."""
LENGTHS: Final = (2, 16)
"""Multiples of the witness's length its own characters are re-tested at (beside the witness itself)."""
MAX_WITNESS: Final = 256
"""Longer witnesses are not re-tested by kind (a long text is no kind)."""

TextAsk = Callable[[Sequence[JSON]], "tuple[list[bool], list[bool]] | None"]
"""Send the call with the field set to each string; each side's acceptances (refusing side first)."""


def category(ch: str) -> str:
    """One character's category among SAID's."""
    if ch.isspace() or ch in JS_SPACE:
        return "whitespace"
    named = unicodedata.category(ch)
    if named == "Cs":
        return "surrogate"
    if named in ("Cn", "Co"):
        return "other"
    return {"C": "control", "L": "letter", "N": "digit", "M": "mark", "P": "symbol", "S": "symbol",
            "Z": "whitespace"}.get(named[0], "other")


def categories(text: str) -> frozenset[str]:
    return frozenset(category(ch) for ch in text)


def cycled(witness: str, n: int) -> str:
    """The witness's characters repeated to `n` characters."""
    return (witness * (n // len(witness) + 1))[:n] if witness else ""


@dataclass(frozen=True)
class KindRule:
    """A string refused for the kind of characters it is made of, whatever its length."""

    field: str
    refused_by: str
    """"a" or "b"."""
    kinds: frozenset[str]
    witness: str
    refused: tuple[str, ...]
    accepted: tuple[str, ...]

    def holds(self, value: JSON) -> bool:
        """Whether `value` is of the refused kind (made of the same categories of characters)."""
        return isinstance(value, str) and value != "" and categories(value) == self.kinds

    @property
    def rule(self) -> str:
        if len(self.kinds) == 1:
            return f"`{self.field}` made only of {SAID[next(iter(self.kinds))]}"
        said = _and(sorted(SAID[k] for k in self.kinds))
        return f"`{self.field}` made of {said} like “{safe(self.witness, 40)}”"

    @property
    def value_class(self) -> str:
        lengths = _and([str(len(s)) for s in self.refused])
        return (f"{KIND_CLASS}: {self.rule}{RETESTED}“{safe(self.witness, 24)}” repeated to {lengths} "
                f"characters refused, letters of those lengths accepted")


def _and(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def of_its_kind(witness: JSON) -> bool:
    """Whether a re-test by kind says anything: a string of some length holding more than letters and
    digits (letters are what the length ladder is made of)."""
    return (isinstance(witness, str) and 0 < len(witness) <= MAX_WITNESS
            and not categories(witness) <= {"letter", "digit"})


def kind_refused(field: str, refused_by: str, witness: str, ask: TextAsk,
                 at: Sequence[int] = ()) -> KindRule | None:
    """The kind rule when the refusing side refuses the witness's characters at its own length and at
    `at` (or LENGTHS times it) where it accepts letters of each of those lengths, and the other side accepts
    them all; else None."""
    n = len(witness)
    lengths = sorted({n, *(at or (n * k for k in LENGTHS))})
    own = [cycled(witness, k) for k in lengths]
    letters = ["b" * k for k in lengths]
    seen = ask([*own, *letters])
    if seen is None:
        return None
    strict, lenient = seen
    if any(strict[:len(own)]) or not all(strict[len(own):]) or not all(lenient):
        return None
    return KindRule(field, refused_by, categories(witness), witness, tuple(own), tuple(letters))


__all__ = ["KIND_CLASS", "KindRule", "categories", "category", "cycled", "kind_refused", "of_its_kind"]
