"""A refusal that follows from the calls before it, not from the call's own values: one cause, said as such.

A fork allowing 40 calls in 5 seconds answered "Rate limit exceeded: at most 40 calls in 5 seconds" to
whatever came next (held-out-multi-14's gateway): `compare` filed those calls under three causes (a value
class of "`a field`", the validation refusals the original gave them, the long probe's 41st call), and the
headline read "accepts some values for `a field` that … refuses": a rule over values where the rule is over
the calls before. The same words of one side, naming no field, answering calls of several kinds in several
causes, at least one of them shown only after earlier calls, are one change: one cause, said in its own
words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from conformance.core.differences import field_named, refusal_words
from conformance.report.model import Difference

CAUSE: Final = "after-calls"
"""The cause the differences of one such refusal are grouped under (fixtures/attribution/rules.yaml)."""
SHOWN_LATE: Final = ("earlier-calls",)
"""Causes whose differences a fresh process shows only after earlier calls."""
LATE_MARKS: Final = ("only after the calls before it", "sent alone on fresh processes", "long probe")
"""Words a difference carries when its call alone answers otherwise (re-tested on fresh calls, or the long
probe's call n)."""


def _refused(text: str) -> str:
    """A side's refusal words, or "" for an answer that is no refusal."""
    if not text.startswith(("isError ", "error ")):
        return ""
    return refusal_words(text)


def _late(d: Difference) -> bool:
    said = f"{d.summary} {d.value_class} {d.detail}"
    return d.cause in SHOWN_LATE or any(mark in said for mark in LATE_MARKS)


def shared_refusal(differences: Sequence[Difference], *, grouped: bool = False) -> tuple[str, str] | None:
    """(side, words) of a refusal naming no field that one side gives in two or more differences of two or
    more causes, one of them shown only after earlier calls, where the other side answers otherwise (once
    `grouped` under CAUSE, in two or more of them); None when there is none."""
    seen: dict[tuple[str, str], list[Difference]] = {}
    for d in differences:
        for side, mine, theirs in (("a", d.a, d.b), ("b", d.b, d.a)):
            words = _refused(mine)
            if words and not field_named(words) and words not in theirs:
                seen.setdefault((side, words), []).append(d)
    for key, members in sorted(seen.items(), key=lambda kv: -len(kv[1])):
        causes = {d.cause for d in members}
        if len(members) >= 2 and (grouped or (len(causes) >= 2 and any(map(_late, members)))):
            return key
    return None


def regrouped(differences: list[Difference]) -> list[Difference]:
    """The differences with those of a shared refusal (`shared_refusal`) under CAUSE: each one whose side's
    answer carries the words and the other side's does not (a long probe's call quoting them among them)."""
    found = shared_refusal(differences)
    if found is None:
        return differences
    side, words = found
    out: list[Difference] = []
    for d in differences:
        mine, theirs = (d.a, d.b) if side == "a" else (d.b, d.a)
        out.append(d.model_copy(update={"cause": CAUSE}) if words in mine and words not in theirs else d)
    return out


def said(members: Sequence[Difference], la: str, lb: str) -> str:
    """The cause's sentence: who refuses, in which words, what the calls were, and that each alone answers
    otherwise; "" when the members are not such a group."""
    if not members or any(d.cause != CAUSE for d in members):
        return ""
    found = shared_refusal(members, grouped=True)
    if found is None:
        return ""
    side, words = found
    refusing, other = (la, lb) if side == "a" else (lb, la)
    return (f"{refusing} refuses calls that follow earlier calls on the same process with “{words}”, "
            f"whatever their arguments (its words name no field), where {other} answers each as it answers "
            f"that call alone: a rule over the calls before it, not over a value")


__all__ = ["CAUSE", "regrouped", "said", "shared_refusal"]
