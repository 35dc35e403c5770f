"""The one door a run asks for the rule behind a refusal a cause's pair shows: it chooses the finders for the
refused field (a relation to another numbered field, `core/relation.py`, then compare's rules between two
fields, `compare/two_fields.py`) and keeps each finder's answer for the run by (target, field, rule kind, what
that finder's calls depend on), so causes refusing one field alike start no second pair of processes for a
question already answered (issue 42: every red run paid for the same re-test once per cause).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Final

from conformance.compare.two_fields import OPTIONAL, PairRule
from conformance.core.js import js_truthy
from conformance.core.jsontypes import JSON
from conformance.core.relation import NUMBERED, Relation
from conformance.core.retest import COMPANIONS, Ask
from conformance.gate.beside_call import call_arguments
from conformance.gate.rules_said import (
    pair_finder,
    pair_rule_headline,
    pair_rule_refused,
    relation_refused,
    rule_headline,
)
from conformance.report.model import Evidence
from conformance.targets.specs import Target

AT_CALL: Final = re.compile(r"on the example's tools/call (\d+)")
MAX_FRAME: Final = 1_000_000

Key = tuple[str, str, str, str]
"""(target, refused field, rule kind, what the kind's calls depend on beyond the field)."""


def _given(call: Mapping[str, JSON], field: str) -> tuple[str, ...]:
    """The numbered fields other than `field` that `call` gives a number: what a ratio's calls hold."""
    return tuple(g for g in NUMBERED if g != field and isinstance(call.get(g), int | float)
                 and not isinstance(call.get(g), bool))


def _set(call: Mapping[str, JSON], field: str) -> tuple[str, ...]:
    """The optional fields `call` sets beyond `field` and the field it goes with: what a both-set re-test
    removes in turn."""
    group = (field, COMPANIONS[field][0]) if field in COMPANIONS else (field,)
    return tuple(g for g in OPTIONAL if g not in group and js_truthy(call.get(g)))


def _masked(words: str) -> str:
    return re.sub(r"\d+", "N", words)


def context(kind: str, field: str, call: Mapping[str, JSON], words: str) -> str:
    """What a finder's answer for `field` depends on beyond the field: a ratio's the other numbered fields
    given (its ladder and anchors are fixed); a value refused in an order of two numbered fields, that value,
    the numbered fields given and the refusal's words (numbers aside); two fields both set, the others set and
    the words."""
    if kind == "ratio":
        return json.dumps(_given(call, field))
    if kind == "conditional":
        return json.dumps([call.get(field), _given(call, field), _masked(words)], sort_keys=True)
    return json.dumps([_set(call, field), _masked(words)])


def refused_call(evidence: Evidence, frames: Sequence[str]) -> Mapping[str, object] | None:
    """The arguments of the tools/call a pair was reproduced on (its `at`), read from the frames it replayed
    (its example's): a pair placed after the walk names its call only there."""
    found = AT_CALL.fullmatch(evidence.at)
    calls = [frame for frame in frames if len(frame) <= MAX_FRAME and _method(frame) == "tools/call"]
    at = int(found.group(1)) if found is not None else 0
    return call_arguments(calls[at - 1]) if 0 < at <= len(calls) else None


def _method(frame: str) -> str:
    try:
        sent = json.loads(frame)
    except (ValueError, RecursionError):
        return ""
    method = sent.get("method") if isinstance(sent, dict) else None
    return method if isinstance(method, str) else ""


class RulesAsked:
    """The rule behind a cause's refusal, each finder asked at most once a run per `Key`; `asked` counts the
    finders run by rule kind and `reused` the answers given again, so what the re-tests cost can be read."""

    def __init__(self, original: Target, target: Target, ask: Ask, timeout: float) -> None:
        self.original, self.target, self.timeout = original, target, timeout
        self._ask = ask
        self._relations: dict[str, Relation | None] = {}
        self._pairs: dict[Key, PairRule | None] = {}
        self._find = pair_finder(original, target, timeout)
        self.asked: Counter[str] = Counter()
        self.reused: Counter[str] = Counter()

    def _pair_rule(self, kind: str, field: str, call: dict[str, JSON], words: str) -> PairRule | None:
        key = (self.target.spec, field, kind, context(kind, field, call, words))
        if key in self._pairs:
            self.reused[kind] += 1
            return self._pairs[key]
        self.asked[kind] += 1
        self._pairs[key] = found = self._find(kind, field, call, words)
        return found

    def headline(self, evidence: Evidence, call: Mapping[str, object] | None) -> str | None:
        """The pair's headline said as the rule behind this server's refusal, a relation between numbered
        fields first, then compare's rules between two fields; None when no rule is found behind it."""
        before = len(self._relations)
        relation = relation_refused(evidence, self._ask, self._relations)
        self.asked["relation"] += len(self._relations) - before
        if relation is not None:
            return rule_headline(relation, evidence)
        two = pair_rule_refused(evidence, call, self.original, self.target, self.timeout, self._pair_rule)
        return pair_rule_headline(two, evidence) if two is not None else None


__all__ = ["Key", "RulesAsked", "context", "refused_call"]
