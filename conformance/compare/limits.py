"""compare's validation cause, one per rule: each rule one side refuses calls by is a change of its own.

Every refusal the other side does not share was filed under one `validation` cause, so a fork adding three
limits (a thought of at most 1,000 characters, numbers refused unless positive integers, revisesThought
required beside isRevision: tests/servers/many_changes.py, nalyk-ts) read as one change (issue 42). A rule is
the refusing side's words with the field it names masked ("Invalid {field}: must be a positive integer" is one
rule over four number fields); its limit's numbers stay, so 1,000 and 10,000 characters are two.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from conformance.compare.retests import VALIDATION_CAUSE
from conformance.core.differences import refusal_error
from conformance.report.model import Difference

_INVALID: Final = re.compile(r"^Invalid [A-Za-z_$][\w$]*:")
"""The original's guard words name their field first: “Invalid thoughtNumber: …”."""


def rule_of(difference: Difference) -> str:
    """The rule a one-side refusal states, its field masked; empty for any other difference, and for a refusal
    whose shown answer holds no JSON `error` (a plain text, an answer cut where it is shown): its words are
    read as `refusal_words` reads a JSON refusal's (`refusal_error`), the top-level `error` only."""
    if difference.aspect != "is_error" or not difference.detail.startswith("refused by "):
        return ""
    shown = difference.a if difference.detail == "refused by a" else difference.b
    error = refusal_error(shown)
    if error is None:
        return ""
    words = _INVALID.sub("Invalid {field}:", error)
    if difference.field:
        words = re.sub(rf"\b{re.escape(difference.field)}\b", "{field}", words)
    return words


def one_cause_per_rule(differences: Sequence[Difference]) -> list[Difference]:
    """The validation differences re-filed one cause per rule: the rule with the most differences keeps
    `validation` (with the differences that state no rule), each other rule `validation/2`, `/3`, …"""
    rules: dict[str, list[int]] = {}
    for i, d in enumerate(differences):
        if d.cause == VALIDATION_CAUSE and (rule := rule_of(d)):
            rules.setdefault(rule, []).append(i)
    if len(rules) < 2:
        return list(differences)
    ordered = sorted(rules.items(), key=lambda kv: (-len(kv[1]), kv[1][0]))
    renamed = {i: f"{VALIDATION_CAUSE}/{n}" for n, (_, members) in enumerate(ordered[1:], start=2)
               for i in members}
    return [d.model_copy(update={"cause": renamed[i]}) if i in renamed else d
            for i, d in enumerate(differences)]


def base_cause(key: str) -> str:
    """The rules' cause a split key stands for (`validation/2` → `validation`)."""
    return key.split("/", 1)[0]
