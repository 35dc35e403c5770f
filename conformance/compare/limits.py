"""compare's validation cause, one per rule: each rule one side refuses calls by is a change of its own.

Every refusal the other side does not share was filed under one `validation` cause, so a fork adding three
limits (a thought of at most 1,000 characters, numbers refused unless positive integers, revisesThought
required beside isRevision: tests/servers/many_changes.py, nalyk-ts) read as one change (issue 42). A rule is
the refusing side's words with the field it names masked ("Invalid {field}: must be a positive integer" is one
rule over four number fields); its limit's numbers stay, so 1,000 and 10,000 characters are two.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Final

from conformance.compare.relations import UNCHECKED_CLASS
from conformance.compare.retests import VALIDATION_CAUSE
from conformance.compare.two_fields import refusing_side
from conformance.core.differences import refusal_error
from conformance.report.model import Difference

_INVALID: Final = re.compile(r"^Invalid [A-Za-z_$][\w$]*:")
"""The original's guard words name their field first: “Invalid thoughtNumber: …”."""


def rule_of(difference: Difference) -> str:
    """The rule a one-side refusal states (an isError result's, or a JSON-RPC error's where the other side
    accepts), its field masked; empty for any other difference, and for a refusal
    whose shown answer holds no JSON `error` (a plain text, an answer cut where it is shown): its words are
    read as `refusal_words` reads a JSON refusal's (`refusal_error`), the top-level `error` only."""
    side = refusing_side(difference)
    if not side:
        return ""
    shown = difference.a if side == "a" else difference.b
    error = refusal_error(shown) if difference.aspect == "is_error" else _protocol_error(shown)
    if error is None:
        return ""
    words = _INVALID.sub("Invalid {field}:", error)
    if difference.field:
        words = re.sub(rf"\b{re.escape(difference.field)}\b", "{field}", words)
    return words


def _protocol_error(shown: str) -> str | None:
    """A JSON-RPC error's message where the other side accepts (`Outcome.show`: "protocol error: {…}"),
    marked as such: a rule refused in another form is a rule of its own (held-out-multi-12's strict-pointers:
    its -32000 runaway rule was filed with its revisesThought rule)."""
    body = shown.removeprefix("protocol error: ")
    if body == shown:
        return None
    try:
        error = json.loads(body)
    except ValueError:
        return None
    message = error.get("message") if isinstance(error, dict) else None
    return f"protocol error: {message}" if isinstance(message, str) else None


def one_cause_per_rule(differences: Sequence[Difference]) -> list[Difference]:
    """The validation differences re-filed one cause per rule: the rule with the most differences keeps
    `validation` (with the differences that state no rule), each other rule `validation/2`, `/3`, …"""
    rules: dict[str, list[int]] = {}
    for i, d in enumerate(differences):
        if d.cause == VALIDATION_CAUSE and (rule := _unchecked_by(d) or rule_of(d)):
            rules.setdefault(rule, []).append(i)
    if len(rules) < 2:
        return list(differences)
    ordered = sorted(rules.items(), key=lambda kv: (-len(kv[1]), kv[1][0]))
    renamed = {i: f"{VALIDATION_CAUSE}/{n}" for n, (_, members) in enumerate(ordered[1:], start=2)
               for i in members}
    return [d.model_copy(update={"cause": renamed[i]}) if i in renamed else d
            for i, d in enumerate(differences)]


def _unchecked_by(difference: Difference) -> str:
    """One rule for every field a side was found not to check, whatever words the other refuses each value
    in (upstream #3007: "base does not check `revisesThought`" headed four causes, one per zod message)."""
    if difference.value_class != UNCHECKED_CLASS:
        return ""
    return f"{UNCHECKED_CLASS}: {difference.detail}"


def base_cause(key: str) -> str:
    """The rules' cause a split key stands for (`validation/2` → `validation`)."""
    return key.split("/", 1)[0]
