"""Which record a wrong totalThoughts contradicts: RTE-4 (raised to thoughtNumber when exceeded, never
lowered) or its amendment RTE-4/a1 (the update consults only the two numbers), told from what was observed.

A total below max(n, m) breaks RTE-4's own sentence. One above it breaks RTE-4 when the two numbers alone
give the same total (a plain control call with them is answered the same: a rounding, a raise past n); a
total the numbers alone do not give (the control call is answered max(n, m)) was decided by something else
(an optional field, the history, the thought), as RTE-4/a1 forbids. Without a server to ask (an answer read
alone), a total above max(n, m) is left undecided.
"""

from __future__ import annotations

from typing import Final, overload

from conformance.core.js import js_double
from conformance.core.jsontypes import JSON
from conformance.core.served import read_answer
from conformance.drivers.wire import Exchange
from conformance.suite.jsvalues import coerced_total
from conformance.suite.session import ServerSession

_CONTROL_THOUGHT: Final = "control"


@overload
def total_record(server: ServerSession, arguments: dict[str, JSON], observed: object) -> str: ...


@overload
def total_record(server: None, arguments: dict[str, JSON], observed: object) -> str | None: ...


def total_record(server: ServerSession | None, arguments: dict[str, JSON], observed: object) -> str | None:
    """The record a total of `observed` for this accepted call contradicts: RTE-4 or RTE-4/a1, or OBJ-4 for
    a total that is no number at all (the answer's shape); None when only a control call could tell and
    there is no server to make it."""
    number, total = arguments.get("thoughtNumber"), arguments.get("totalThoughts")
    if not isinstance(number, int | float) or not isinstance(total, int | float):
        return "RTE-4"
    if not isinstance(observed, int | float) or isinstance(observed, bool):
        return "OBJ-4"
    wanted = coerced_total(number, total)
    if not observed > wanted:
        return "RTE-4"
    if server is None:
        return None
    control = {
        "thought": _CONTROL_THOUGHT,
        "thoughtNumber": number,
        "totalThoughts": total,
        "nextThoughtNeeded": arguments.get("nextThoughtNeeded", True),
    }
    answered = server.call(control)
    if answered.error is None and not answered.is_error:
        plain = answered_number(answered, "totalThoughts")
        if plain == wanted:
            return "RTE-4/a1"
    return "RTE-4"


def answered_number(exchange: Exchange, key: str) -> float | None:
    """The number an answer's status text holds at `key`, as a JavaScript client reads it (a huge integer is
    Infinity, not a crash); None when the text is no JSON object or the value no number (read, not judged:
    the answer's shape is OBJ-4's check)."""
    try:
        status = read_answer(exchange.text or "", "answer text")
    except ValueError:
        return None
    value = status.get(key) if isinstance(status, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return js_double(value)


def header_total(text: str) -> float | None:
    """The total a rendered header shows, as a number (None when it shows none)."""
    try:
        return float(text)
    except ValueError:
        return None
