"""A cause whose pair shows this server refusing a numbered field by a relation to another field, said as that
rule with the calls that show it ("this server refuses `revisesThought` ≥ `thoughtNumber` … 3 with 3 refused,
2 with 3 accepted"), not as the one call its example happened to send (issue 42). The rule is found by
`core/relation.py`, the finder `compare` marks its differences with, so both commands name one rule alike;
failing that, by compare's rules between two fields (`compare/two_fields.py`: a ratio or an offset between
two numbered fields, two optional fields not both set, a value refused only where two numbered fields stand
in an order), said in compare's words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Final, cast

from conformance.compare.two_fields import PairRule, find_both_set, find_conditional, find_ratio
from conformance.core.differences import Refusal, quoted, refusal
from conformance.core.jsontypes import JSON
from conformance.core.relation import NUMBERED, Relation, relation_retested, said
from conformance.core.retest import Ask, accepted
from conformance.report.model import Evidence
from conformance.targets.specs import Target


def _masked(words: str) -> str:
    return re.sub(r"\d+", "N", words)


@dataclass(frozen=True)
class RuleRefused:
    """A relation this server refuses a pair's call by, with the pair's own refusal (its words and form, read
    once from the pair)."""

    relation: Relation
    refusal: Refusal


def relation_refused(evidence: Evidence, ask: Ask, found: MutableMapping[str, Relation | None]
                     ) -> RuleRefused | None:
    """The relation behind the refusal a reproduced pair shows this server making, where the original
    accepts the call or refuses it otherwise: the field this server's refusal names is re-tested against
    each other numbered field (once per field a run, kept in `found`), and the rule is this refusal's only
    when the re-test's refused call is refused in the same words, numbers aside. None otherwise."""
    answers = _answers(evidence) if evidence.differences else None
    if answers is None:
        return None
    theirs, ours = answers
    here, there = refusal(ours), refusal(theirs)
    if here is None or here.field not in NUMBERED:
        return None
    if there is None and not accepted(theirs):
        return None  # the original gave no tool result at all: nothing to hold a rule against
    if there is not None and (there.words, there.kind) == (here.words, here.kind):
        return None
    if here.field not in found:
        found[here.field] = relation_retested(here.field, "b", ask)
    relation = found[here.field]
    if relation is None or _masked(relation.words) != _masked(here.words):
        return None
    return RuleRefused(relation, here)


def _answers(evidence: Evidence) -> tuple[JSON, JSON] | None:
    """The original's and this server's answers of a reproduced pair; None for a pair not reproduced or not
    JSON."""
    if not evidence.reproduced:
        return None
    try:
        return json.loads(evidence.original), json.loads(evidence.target)
    except ValueError:
        return None


def rule_headline(rule: RuleRefused, evidence: Evidence) -> str:
    """The pair's headline with the rule first: the rule and the calls showing it, then this server's own
    words for the example's call, then where it was reproduced."""
    here = rule.refusal
    _, mark, where = evidence.headline().rpartition(" (reproduced ")
    return (f"{said(rule.relation, 'this server', 'the original')} — {quoted(here.words, 100)} ({here.kind})"
            f"{mark}{where if mark else ''}")


PairFinder = Callable[[str, str, dict[str, JSON], str], PairRule | None]
"""One of compare's finders asked for (rule kind, refused field, the refused call, this server's words)."""

PAIR_KINDS: Final = ("ratio", "conditional", "both set")
"""Compare's rules between two fields, in the order a refused field is tried along them."""


def pair_finder(original: Target, target: Target, timeout: float) -> PairFinder:
    """Compare's finders as `compare` asks them (`original` as its side a, this server as b, on fresh
    pairs), each asked anew."""

    def find(kind: str, field: str, call: dict[str, JSON], words: str) -> PairRule | None:
        if kind == "ratio":
            return find_ratio(original, target, field, "b", call, timeout)
        if kind == "conditional":
            return find_conditional(original, target, field, "b", call, words, timeout)
        return find_both_set(original, target, field, "b", call, words, timeout)
    return find


def pair_rule_refused(evidence: Evidence, call: Mapping[str, object] | None, original: Target, target: Target,
                      timeout: float, find: PairFinder | None = None) -> tuple[PairRule, Refusal] | None:
    """The rule between two fields behind a reproduced pair where the original accepts the call and this
    server refuses it, found as `compare` finds it for the field its refusal names: a ratio or offset for a
    numbered one, then its value refused only in an order of two numbered fields, then two optional fields
    not both set; a rule only where the call breaks it. `find` asks the finders (by default anew; a run's
    `RulesAsked` keeps their answers). None when no rule of the family holds."""
    answers = _answers(evidence) if call is not None else None
    if answers is None or call is None:
        return None
    theirs, ours = answers
    here = refusal(ours)
    if here is None or refusal(theirs) is not None or not accepted(theirs):
        return None
    ask = find or pair_finder(original, target, timeout)
    arguments = cast(dict[str, JSON], json.loads(json.dumps(dict(call))))
    if here.field in arguments:
        field = here.field
        for kind in PAIR_KINDS:
            if kind == "ratio" and field not in NUMBERED:
                continue
            rule = ask(kind, field, arguments, here.words)
            if rule is not None and rule.breaks(arguments):
                return rule, here
        return None
    # A refusal naming no field the call sends ("thoughtNumber 99 is more than ten times totalThoughts 9"
    # names two): each numbered field the call sends that its words name (every one, where they name none),
    # along compare's ladder ("branchId needs branchFromThought" is no ratio of `thoughtNumber`'s).
    named = [f for f in NUMBERED if re.search(rf"\b{f}\b", here.words)]
    for field in (f for f in named or NUMBERED if f in arguments):
        rule = ask("ratio", field, arguments, here.words)
        if rule is not None and rule.breaks(arguments):
            return rule, here
    return None


def pair_rule_headline(found: tuple[PairRule, Refusal], evidence: Evidence) -> str:
    """The pair's headline with compare's rule first (its words and the calls showing it), then this
    server's own words for the example's call, then where it was reproduced."""
    rule, here = found
    _, mark, where = evidence.headline().rpartition(" (reproduced ")
    return (f"this server refuses {rule.rule}, which the original accepts (re-tested on fresh calls: "
            f"{rule.evidence}) — {quoted(here.words, 100)} ({here.kind}){mark}{where if mark else ''}")


__all__ = [
    "PAIR_KINDS",
    "PairFinder",
    "RuleRefused",
    "pair_finder",
    "pair_rule_headline",
    "pair_rule_refused",
    "relation_refused",
    "rule_headline",
]
