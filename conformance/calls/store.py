"""What an accepted answer says about the process-global store: its size and branch labels (OBJ-4, OBJ-15).

The suite reads it to know where a check starts from; compare reads it to know where both sides stand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from conformance.core.differences import quoted, refusal
from conformance.core.jsontypes import JSON
from conformance.core.key_paths import found_at
from conformance.core.served import read_answer
from conformance.drivers.errors import ProtocolViolation
from conformance.drivers.wire import Exchange


@dataclass(frozen=True)
class StoreState:
    """What an accepted answer reveals about the process-global store (OBJ-4, OBJ-15)."""

    history_length: int
    branches: tuple[str, ...]


def status_of(exchange: Exchange) -> dict[str, JSON]:
    """The status object of an answer (OBJ-4 or OBJ-8): content[0].text parsed as JSON."""
    text = exchange.text
    if text is None:
        raise ProtocolViolation(f"tools/call answer has no text content: {_json(exchange.response)}")
    parsed = read_answer(text, "tools/call text")  # Unreadable (a ValueError): the record's departure
    if not isinstance(parsed, dict):
        raise ProtocolViolation(f"tools/call text is not a JSON object: {_json(text)}")
    return parsed


def state_of(exchange: Exchange) -> StoreState:
    """Read the store state from an accepted answer. A refusal (a result flagged isError, or a JSON-RPC error)
    is said as the refusal, in its words: it carries no count, and "no key 'thoughtHistoryLength'" pointed at
    a renamed field where the call was refused (reports/third-party/AUDIT-round9.md, bartoszkula-ts)."""
    refused = refusal(exchange.response)
    if refused is not None:
        raise AssertionError(refused_said(refused.kind, refused.words))
    status = status_of(exchange)
    for key in ("thoughtHistoryLength", "branches"):
        # The KeyError's words, and where the key sits instead: a count moved under an envelope's `result`
        # is said there (issue 42, fork-api-envelope), not only as missing.
        if key not in status and (at := found_at(status, key)) is not None:
            raise AssertionError(f"no key '{key}' where the check read one (it is at `{at}`)")
    length = status["thoughtHistoryLength"]
    branches = status["branches"]
    assert isinstance(length, int) and isinstance(branches, list), (
        f"the status object's thoughtHistoryLength is {_json(length)} and its branches {_json(branches)}, "
        f"where the original answers a count and a list of labels")
    return StoreState(length, tuple(map(str, branches)))


def refused_said(kind: str, words: str) -> str:
    """A call the check needed accepted, said as the refusal it got: its kind, then its own words."""
    return f"call was rejected: {kind} {quoted(words, 300)}"


def _json(value: JSON) -> str:
    """A value as the server wrote it, on one line, whole under 200 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:199] + "…"
