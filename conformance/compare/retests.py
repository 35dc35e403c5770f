"""compare's differences re-tested before they are explained (`core/retest.py` holds the rules and words,
shared with `run`'s evidence): two refusals naming other fields (validation order, or a field one side lets pass),
two refusals in other words at a call breaking a rule between numbered fields (re-sent at thought 3 of 3), a field
one side never checks (sent as `{}`), a field refused without the field it goes with.

Each re-test runs once per lead difference of its kind (the first of each pair of fields, each field and side), so
a comparison pays a few fresh pairs, counted in `Retests.calls`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from conformance.compare.explain import last_call_arguments
from conformance.compare.pair import Retests
from conformance.compare.relations import RELATION_CLASS, RETEST_CLASS, UNCHECKED_CLASS
from conformance.core.differences import refusal_in_text
from conformance.core.retest import companion_retested, refusals_retested, unchecked_retested
from conformance.report.model import Difference

CONVERTED_CAUSE: Final = "coercion"
VALIDATION_CAUSE: Final = "validation"


def with_retests(differences: list[Difference], ask: Retests, la: str, lb: str,
                 say: Callable[[str], None]) -> list[Difference]:
    """The differences with each re-test's finding as their value class (and an unchecked field's cause
    `validation`, not `coercion`: nothing was converted)."""
    out = _refusal_pairs(differences, ask, la, lb, say)
    out = _unchecked(out, ask, la, lb, say)
    return _companions(out, ask, say)


def _refusal_pairs(differences: list[Difference], ask: Retests, la: str, lb: str,
                   say: Callable[[str], None]) -> list[Difference]:
    done: dict[tuple[str, str, str], str] = {}
    out: list[Difference] = []
    for d in differences:
        if not (d.aspect == "answer" and d.detail == "error text"):
            out.append(d)
            continue
        ra, rb = refusal_in_text(d.a), refusal_in_text(d.b)
        key = (ra.field, rb.field, "" if ra.field and rb.field and ra.field != rb.field else ra.words + rb.words)
        if key not in done:
            found = refusals_retested(last_call_arguments(d.program), ra, rb, ask, la, lb)
            done[key] = f"{RETEST_CLASS}: {found.kind}: {found.conclusion}" if found is not None else ""
            if found is not None:
                say(f"re-test: {found.kind} ({ra.field or '-'} / {rb.field or '-'})")
        # Not a re-wording: a side refusing another value, or by another rule, is validation.
        out.append(d.model_copy(update={"value_class": done[key], "cause": VALIDATION_CAUSE}) if done[key] else d)
    return out


def _unchecked(differences: list[Difference], ask: Retests, la: str, lb: str,
               say: Callable[[str], None]) -> list[Difference]:
    done: dict[tuple[str, str], bool] = {}
    out: list[Difference] = []
    for d in differences:
        if not (d.aspect == "is_error" and d.cause == CONVERTED_CAUSE and d.field and ":" not in d.value_class):
            out.append(d)
            continue
        side = d.detail.removeprefix("refused by ")
        key = (d.field, side)
        if key not in done:
            done[key] = unchecked_retested(d.field, last_call_arguments(d.program), side, ask, la, lb) is not None
            if done[key]:
                say(f"re-test: {'B' if side == 'a' else 'A'} does not check `{d.field}`")
        out.append(d.model_copy(update={"value_class": UNCHECKED_CLASS, "cause": VALIDATION_CAUSE})
                   if done[key] else d)
    return out


def _companions(differences: list[Difference], ask: Retests, say: Callable[[str], None]) -> list[Difference]:
    done: dict[tuple[str, str], str] = {}
    out: list[Difference] = []
    for d in differences:
        if not (d.aspect == "is_error" and d.field and ":" not in d.value_class
                and d.value_class != UNCHECKED_CLASS):
            out.append(d)
            continue
        side = d.detail.removeprefix("refused by ")
        key = (d.field, side)
        if key not in done:
            rule = companion_retested(d.field, last_call_arguments(d.program), side, ask)
            done[key] = rule or ""
            if rule:
                say(f"re-test: {'A' if side == 'a' else 'B'} refuses {rule}")
        # The relation's value class, as relations.py writes it, so explain says it as the rule it is.
        out.append(d.model_copy(update={"value_class": f"{RELATION_CLASS}: {done[key]}"}) if done[key] else d)
    return out


__all__ = ["with_retests"]
