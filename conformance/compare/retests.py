"""compare's differences re-tested before they are explained (`core/retest.py` holds the rules and words,
shared with `run`'s evidence): two refusals naming other fields (validation order, or a field one side lets
pass), two refusals in other words at a call breaking a rule between numbered fields (re-sent at thought 3 of
3), a field one side never checks (sent as `{}`), a field refused without the field it goes with.

Each re-test runs once per lead difference of its kind (the first of each pair of fields, each field and
side), so a comparison pays a few fresh pairs, counted in `Retests.calls`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from conformance.compare.explain import last_call_arguments
from conformance.compare.pair import Retests
from conformance.compare.relations import RELATION_CLASS, RETEST_CLASS, UNCHECKED_CLASS
from conformance.core.differences import refusal_in_text
from conformance.core.jsontypes import JSON
from conformance.core.retest import (
    COMPANIONS,
    companion_retested,
    lacks_companion,
    refusals_retested,
    unchecked_retested,
)
from conformance.report.model import Difference

CONVERTED_CAUSE: Final = "coercion"
VALIDATION_CAUSE: Final = "validation"


def with_retests(differences: list[Difference], ask: Retests, la: str, lb: str,
                 say: Callable[[str], None]) -> list[Difference]:
    """The differences with each re-test's finding as their value class (and an unchecked field's cause
    `validation`, not `coercion`: nothing was converted)."""
    out = _refusal_pairs(differences, ask, la, lb, say)
    out = _companions(out, ask, say)  # first: a rule about a field is said before "does not check" it
    return _unchecked(out, ask, la, lb, say)


def _refusal_pairs(differences: list[Difference], ask: Retests, la: str, lb: str,
                   say: Callable[[str], None]) -> list[Difference]:
    done: dict[tuple[str, str, str], str] = {}
    out: list[Difference] = []
    for d in differences:
        if not (d.aspect == "answer" and d.detail == "error text"):
            out.append(d)
            continue
        ra, rb = refusal_in_text(d.a), refusal_in_text(d.b)
        other_fields = ra.field and rb.field and ra.field != rb.field
        key = (ra.field, rb.field, "" if other_fields else ra.words + rb.words)
        if key not in done:
            found = refusals_retested(last_call_arguments(d.program), ra, rb, ask, la, lb)
            done[key] = f"{RETEST_CLASS}: {found.kind}: {found.conclusion}" if found is not None else ""
            if found is not None:
                say(f"re-test: {found.kind} ({ra.field or '-'} / {rb.field or '-'})")
        # Not a re-wording: a side refusing another value, or by another rule, is validation.
        update = {"value_class": done[key], "cause": VALIDATION_CAUSE}
        out.append(d.model_copy(update=update) if done[key] else d)
    return out


def _unchecked(differences: list[Difference], ask: Retests, la: str, lb: str,
               say: Callable[[str], None]) -> list[Difference]:
    """Re-tested once per optional field and refusing side (a required field is always checked); a field
    found unchecked marks every refusal of it by that side that no rule explains, whatever cause it was filed
    under (`coercion` credited a conversion where nothing was converted)."""
    done: dict[tuple[str, str], bool] = {}
    for d in differences:
        key = (d.field, d.detail.removeprefix("refused by "))
        if _bare_refusal(d) and key not in done:
            call = last_call_arguments(d.program)
            done[key] = unchecked_retested(d.field, call, key[1], ask, la, lb) is not None
            if done[key]:
                say(f"re-test: {'B' if key[1] == 'a' else 'A'} does not check `{d.field}`")
    return [d.model_copy(update={"value_class": UNCHECKED_CLASS, "cause": VALIDATION_CAUSE})
            if _bare_refusal(d) and done.get((d.field, d.detail.removeprefix("refused by ")))
            else d for d in differences]


def _bare_refusal(d: Difference) -> bool:
    """A refusal by one side of a field's value that no rule found so far explains."""
    return (d.aspect == "is_error" and bool(d.field) and ":" not in d.value_class
            and d.value_class != UNCHECKED_CLASS)


def _companions(differences: list[Difference], ask: Retests, say: Callable[[str], None]) -> list[Difference]:
    """Re-tested once per field and refusing side, on a call lacking the field's companion whose refusal names
    the companion ("When isRevision is true, revisesThought must be provided"); the rule found
    marks the refusals of that field by that side in the same words whose calls lack it (`"true"` for
    `isRevision`, refused by its type, is not refused for want of `revisesThought`)."""
    done: dict[tuple[str, str], tuple[str, str]] = {}
    for d in differences:
        call = last_call_arguments(d.program)
        field = _given_field(d.field, call)
        key = (field, d.detail.removeprefix("refused by "))
        if _bare_refusal(d) and _lacks_companion(field, call) and key not in done \
                and COMPANIONS[field][0] in _refused_words(d):  # a refusal for want of it names it
            done[key] = (companion_retested(field, call, key[1], ask) or "", _refused_words(d))
            if done[key][0]:
                say(f"re-test: {'A' if key[1] == 'a' else 'B'} refuses {done[key][0]}")
    out: list[Difference] = []
    for d in differences:
        call = last_call_arguments(d.program)
        field = _given_field(d.field, call)
        rule, words = done.get((field, d.detail.removeprefix("refused by ")), ("", ""))
        if (rule and _bare_refusal(d) and _refused_words(d) == words
                and _lacks_companion(field, call)):
            # The relation's value class, as relations.py writes it, so explain says it as the rule it is.
            d = d.model_copy(update={"value_class": f"{RELATION_CLASS}: {rule}", "cause": VALIDATION_CAUSE})
        out.append(d)
    return out


def _given_field(field: str, call: JSON | None) -> str:
    """The field a companion rule is about: a refusal naming the missing field (“revisesThought is required
    when isRevision is true”, #4100) is about the companion the call gave, else "accepts missing for
    `revisesThought`" was said where the rule is `isRevision` without `revisesThought`."""
    if not isinstance(call, dict) or field not in COMPANIONS or field in call:
        return field
    other = COMPANIONS[field][0]
    return other if other in call and COMPANIONS.get(other, ("",))[0] == field else field


def _refused_words(d: Difference) -> str:
    return refusal_in_text(d.a if d.detail == "refused by a" else d.b).words


def _lacks_companion(field: str, call: JSON | None) -> bool:
    return call is not None and lacks_companion(field, call)


__all__ = ["with_retests"]
