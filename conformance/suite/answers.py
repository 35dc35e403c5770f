"""Reading a tools/call answer the way the records describe it: OBJ-4 when accepted, OBJ-8 when not.

Deliberately lenient about everything a record is not about, so one deviation fails only the tests of
the record it concerns (OBJ-4's exact shape has its own test).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Final

from mcp_types import CallToolResult, TextContent

from conformance.calls.store import StoreState
from conformance.calls.strategies import Envelope
from conformance.core.differences import other_fields, quoted, refusal_body, spells
from conformance.core.failure_text import ANSWER_READS
from conformance.core.guards import GUARD_REFUSALS
from conformance.core.js import js_number_string
from conformance.core.jsontypes import JSON, OMIT, Omitted
from conformance.core.key_paths import located
from conformance.core.protocol import ARGUMENT_NAMES, TOOL
from conformance.core.served import Unreadable, read_answer, read_served, status_block, trailed
from conformance.drivers.sdk import SdkDriver
from conformance.drivers.wire import Exchange, call_arguments
from conformance.suite.coercion import total_record
from conformance.suite.contradiction import Message, brief, expect, said
from conformance.suite.jsvalues import coerced_total, guard_failure
from conformance.suite.served_schema import schema_valid
from conformance.suite.session import ServerSession

INVALID_PARAMS = -32602
"""JSON-RPC's code for a request whose params the server refuses."""

STATUS_KEYS = ["thoughtNumber", "totalThoughts", "nextThoughtNeeded", "branches", "thoughtHistoryLength"]
"""OBJ-4's five fields, in the order the original writes them."""


ACCEPTED_RESULT_KEYS = ("content",)
"""The keys of the original's result for an accepted call (SDK 0.5.0 sends what the handler returns): no
`structuredContent` (MCP 2025-06-18 on), no `_meta`, no `isError: false`."""
REFUSED_RESULT_KEYS = ("content", "isError")
"""The keys of the original's result for a refused call (OBJ-8): the text and `isError: true`, no other."""


def unsent_result_keys(result: dict[str, JSON], sent: tuple[str, ...]) -> str:
    """The keys of a tools/call result the original never sends, each with its value cut short ("" when
    none): a fork answering `structuredContent` or `_meta` beside its text changed what a client reads."""
    extra = [key for key in result if key not in sent]
    return ", ".join(f"{key}: {brief(result[key], 160)}" for key in extra)


DESCRIBED_CHARS = 600
"""An answer quoted in a failure's message is cut here."""
_JSON_LAYOUT = re.compile(r"\n[ \t]*")
"""A line break and the indentation after it: between JSON tokens only (a JSON string holds none raw)."""


def describe(exchange: Exchange) -> str:
    """An answer on one line as a person reads it: a tool result by its text (a JSON object with its line
    breaks and indentation folded, where the JSON-RPC dump escaped each one, `"{\\n  \\"thoughtNumber…`),
    `isError` before a flagged one, any other field of the result after it; a JSON-RPC error by its code
    and words; anything else as the JSON the server wrote."""
    return describe_response(exchange.response)


def describe_response(response: dict[str, JSON]) -> str:
    """`describe` of a JSON-RPC response read without its exchange (a fresh run's answers)."""
    raw_result, raw_error = response.get("result"), response.get("error")
    result = raw_result if isinstance(raw_result, dict) else None
    error = raw_error if isinstance(raw_error, dict) else None
    content = result.get("content") if result is not None else None
    block = content[0] if isinstance(content, list) and len(content) == 1 else None
    text = block.get("text") if isinstance(block, dict) and block.get("type") == "text" else None
    if error is not None and result is None:
        said = f"JSON-RPC error {brief(error.get('code'))}, {brief(error.get('message'))}"
        data = {key: value for key, value in error.items() if key not in ("code", "message")}
        shown = said + (f", with {json.dumps(data, ensure_ascii=False)}" if data else "")
    elif result is not None and isinstance(text, str):
        folded = _JSON_LAYOUT.sub(" ", text).strip()
        body = folded if folded.startswith("{") and _is_json(text) else quoted(text, DESCRIBED_CHARS)
        others = {key: value for key, value in result.items() if key not in ("content", "isError")}
        shown = ("isError " if result.get("isError") is True else "the answer ") + body + (
            f", with {json.dumps(others, ensure_ascii=False)}" if others else "")
    else:
        shown = json.dumps(response, ensure_ascii=False)
    return shown if len(shown) <= DESCRIBED_CHARS else shown[: DESCRIBED_CHARS - 1] + "…"


def _is_json(text: str) -> bool:
    """Whether a text is one JSON value (a longer text is said as text: a message is no place to parse it)."""
    if len(text) > 100_000:
        return False
    try:
        read_served(text, "answer text")
    except Unreadable:
        return False
    return True


def answer_status(exchange: Exchange, shape: str | None = None) -> dict[str, JSON]:
    """content[0].text parsed as a JSON object; a record deviation (assertion), never a driver error. With
    `shape` (OBJ-4 for an accepted answer, OBJ-8 for a refusal), a text that is not one names that record."""
    text = exchange.text
    _expect_shape(shape, text is not None, lambda: f"no text content: {describe(exchange)}")
    assert text is not None, f"no text content: {describe(exchange)}"
    try:
        parsed = read_answer(text, "answer text")
    except Unreadable as exc:
        parsed = None
        reason = "is not JSON" if exc.reason.startswith("is not JSON") else exc.reason
        _expect_shape(shape, False, f"the answer's text {reason}, where the original answers a JSON object: "
                                    f"{quoted(text, 300)}")
    read: str = text
    not_object = "the answer's text is not a JSON object, where the original answers one: "
    _expect_shape(shape, isinstance(parsed, dict), lambda: not_object + quoted(read, 300))
    assert isinstance(parsed, dict), not_object + quoted(read, 300)
    return parsed


def fenced_said(what: str, holds: str, text: str) -> str:
    """The message of OBJ-4's or OBJ-8's own check when an answer's text is its JSON inside a markdown code
    fence: the fence is the departure, the object inside it is read by every other check."""
    opening = text.strip().split("\n", 1)[0]
    return (f"{what} is its {holds} inside a markdown code fence ({quoted(opening, 40)} … “```”), where the "
            f"original answers the JSON text alone")


def trailed_said(what: str, holds: str, text: str) -> str:
    """The message of OBJ-4's or OBJ-8's own check when an answer's text is its JSON followed by more text:
    the trail is the departure, the object before it is read by every other check."""
    trail = trailed(text)
    after = trail[1] if trail is not None else ""
    lines = after.count("\n") + 1
    return (f"{what} is its {holds} followed by {lines} more line(s) of text ({quoted(after, 60)}), where "
            f"the original answers the JSON text alone")


def _expect_shape(record: str | None, condition: bool, message: Message) -> None:
    if record is not None:
        expect(record, condition, message)
    elif not condition:
        raise AssertionError(said(message))


def accepted(exchange: Exchange) -> dict[str, JSON]:
    """The status object of an accepted call; fails when the call was rejected or broke the protocol. A
    refusal worded as a validation failure ("Invalid …", or JSON-RPC's invalid params) contradicts RTE-3:
    the callers expect the call to pass the guards, and RTE-3 accepts such a call whatever the optional
    fields hold. An answer out of OBJ-4's shape contradicts OBJ-4."""
    if exchange.error is not None or exchange.is_error:
        refused = refused_as_invalid(exchange)
        expect("RTE-3", not refused, f"call was refused as invalid: {describe(exchange)}")
    assert exchange.error is None, f"protocol error instead of a tool result: {describe(exchange)}"
    if exchange.is_error:
        expect_no_bound(exchange)
    assert not exchange.is_error, f"call was rejected: {describe(exchange)}"
    found = answer_status(exchange, "OBJ-4")
    _expect_refusals_flagged(exchange, found)
    counted = isinstance(found.get("thoughtHistoryLength"), int)
    expect("OBJ-4", counted, lambda: _lacks(found, "thoughtHistoryLength", "a count"))
    expect("OBJ-4", isinstance(found.get("branches"), list),
           lambda: _lacks(found, "branches", "a list of labels"))
    _expect_echoes(_sent_arguments(exchange), found, lambda: describe(exchange))
    return found


_EXACT = 2**53
"""Numbers a JavaScript server echoes digit for digit (beyond it, a double rounds what was sent)."""


def _sent_arguments(exchange: Exchange) -> dict[str, JSON]:
    return call_arguments(exchange.request, TOOL)


def _expect_echoes(sent: dict[str, JSON], found: dict[str, JSON], shown: Callable[[], str]) -> None:
    """An accepted answer's thoughtNumber and nextThoughtNeeded are the values sent (OBJ-14's statement:
    they echo the request), whatever else the call held; a value changed on the way back contradicts OBJ-14
    wherever it is read, not the record of the test that happened to read it (ABS-3 for a flag decided by
    the thought's content). Its totalThoughts is max(n, m) as sent: any other contradicts RTE-4's raise, or
    its amendment's "only the two numbers" (`total_record`). Only plain values are compared: a boolean
    flag, a number a double holds exactly; a missing field is OBJ-4's."""
    flag = sent.get("nextThoughtNeeded")
    if isinstance(flag, bool) and "nextThoughtNeeded" in found:
        expect("OBJ-14", found["nextThoughtNeeded"] == flag,
               lambda: f"nextThoughtNeeded {json.dumps(flag)} sent, {json.dumps(found['nextThoughtNeeded'])} "
                       f"answered: {shown()}")
    number, total = sent.get("thoughtNumber"), sent.get("totalThoughts")
    if _plain_number(number) and "thoughtNumber" in found:
        echoed = found["thoughtNumber"]
        expect("OBJ-14", _plain_number(echoed) and echoed == number,
               lambda: f"thoughtNumber {json.dumps(number)} sent, {json.dumps(echoed)} answered: "
                       f"{shown()}")
    if _plain_number(number) and _plain_number(total) and "totalThoughts" in found:
        assert isinstance(number, int | float) and isinstance(total, int | float), (
            f"the harness read thoughtNumber {number!r} and totalThoughts {total!r} as plain numbers")
        answered, wanted = found["totalThoughts"], coerced_total(number, total)
        differs = _plain_number(answered) and answered != wanted
        record = total_record(None, sent, answered) if differs else None
        if record is not None:
            expect(record, False,
                   f"totalThoughts {json.dumps(total)} sent with thoughtNumber {json.dumps(number)}, "
                   f"{json.dumps(answered)} answered; the original answers {js_number_string(wanted)}: "
                   f"{shown()}")


def _lacks(found: dict[str, JSON], key: str, due: str) -> str:
    """A status object without one of OBJ-4's fields as the original answers it: its fields against OBJ-4's
    when the key is missing, else the value it holds; then the object as the server wrote it."""
    said = (f"the status object's {key} is {brief(found[key])}, where the original answers {due}"
            if key in found else fields_unlike(list(found), STATUS_KEYS, "the status object"))
    return f"{said}: {brief(found)}"


def _plain_number(value: object) -> bool:
    """A number a double holds exactly, compared as sent (no boolean, nothing past 2**53)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and abs(value) < _EXACT


def _expect_refusals_flagged(exchange: Exchange, parsed: dict[str, JSON]) -> None:
    """An unflagged answer holding OBJ-8's {error, status: "failed"} to a call the original refuses too is a
    refusal without its isError flag: OBJ-8's departure, not an accepted answer missing OBJ-4's fields."""
    refusal = refusal_object(parsed)
    sent = _sent_arguments(exchange)
    if refusal and sent and guard_failure(sent) is not None:
        expect("OBJ-8", False, f"the refusal {brief(exchange.text)} is answered without isError: true")


def refusal_object(parsed: object) -> bool:
    """OBJ-8's {error, status: "failed"}: a refusal's body, flagged or not (core's `refusal_body`, which the
    explainer reads it by too)."""
    return refusal_body(parsed)


def refusal_text(text: str | None) -> bool:
    """A text content holding OBJ-8's refusal body."""
    try:
        return refusal_object(read_answer(text or "", "answer text"))
    except ValueError:
        return False


def answered_ok(exchange: Exchange) -> bool:
    """Whether the server accepted the call: neither a protocol error, nor a result flagged isError, nor a
    refusal's body answered without the flag (OBJ-8's departure, not an acceptance the count follows)."""
    return exchange.error is None and not exchange.is_error and not refusal_text(exchange.text)


def refused_as_invalid(exchange: Exchange) -> bool:
    """Whether a call was refused as a validation failure ("Invalid …", or JSON-RPC's invalid params)."""
    error = exchange.error
    if error is not None:
        message = error.get("message")
        worded = isinstance(message, str) and message.startswith("Invalid")
        return error.get("code") == INVALID_PARAMS or worded
    text = exchange.text or ""
    try:
        parsed = read_answer(text, "answer text")
    except ValueError:
        parsed = None
    message = parsed.get("error") if isinstance(parsed, dict) else text
    return isinstance(message, str) and _INVALID.match(message) is not None


_INVALID = re.compile(r"(?:[A-Za-z][\w -]{0,30}:\s*){0,2}Invalid\b")
"""A validation refusal's words, also behind the labels a fork or its SDK puts before them in a plain-text
refusal ("Error: Invalid thought: …", "MCP error -32602: Input validation error: Invalid arguments …"): a
refusal is judged by what it says, not its wrapping."""


def accepted_if_host_valid(exchange: Exchange, arguments: dict[str, JSON]) -> dict[str, JSON] | None:
    """For records about accepted calls: a call that is schema-valid and passes RTE-3's guards must be
    accepted; one a server rejects that is adversarial, or that the falsy guards refuse although the schema
    admits it (thought: "", RTE-3/a1), makes the record vacuous for that example (its rejection is another
    record's business)."""
    refused = exchange.error is not None or exchange.is_error
    if refused and (not schema_valid(arguments) or guard_failure(arguments) is not None):
        return None
    return accepted(exchange)


def store(exchange: Exchange) -> StoreState:
    found = accepted(exchange)
    missing = [key for key in ("thoughtHistoryLength", "branches") if key not in found]
    expect("OBJ-4", not missing,
           lambda: f"no {' or '.join(missing)} in the status object: {describe(exchange)}")
    length = found["thoughtHistoryLength"]
    branches = found["branches"]
    assert isinstance(length, int) and isinstance(branches, list), (
        f"thoughtHistoryLength {brief(length)} or branches {brief(branches)} is not a number and a list")
    others = [label for label in branches if not isinstance(label, str)]
    expect("OBJ-3", not others, lambda: (
        f"branches lists {brief(others)}, not a label string, where the original lists its map's keys, "
        f"strings: {describe(exchange)}"))
    return StoreState(length, tuple(map(str, branches)))


def expect_count(got: int, wanted: int, context: Message, *, call: Exchange | None = None) -> None:
    """thoughtHistoryLength is `wanted`; any other count contradicts OBJ-2 (see `expect_one_more`). A count
    is never said alone: `call`, when the context does not quote it, is said by what it carried."""
    expect("OBJ-2", got == wanted,
           context if call is None else lambda: f"{said(context)}; the call was one {sent_said(call)}")


def expect_one_more(before: int, after: int, context: Message, *, call: Exchange) -> None:
    """An accepted call raised thoughtHistoryLength by exactly one. Anything else contradicts OBJ-2 (the count
    is the number of calls that passed validation) whatever the cause: a call not appended (RTE-5's append,
    too) or a length misreported; only OBJ-2's statement is false under every reading of what was seen."""
    expect_count(after, before + 1, lambda: f"{_moved(before, after, call)}: {said(context)}")


def sent_said(call: Exchange) -> str:
    """A call by what it carried: arguments the original does not declare named first (a fork may read them,
    a `sessionId` keeping a count of its own), else its arguments: "from 1680 to 2" alone hid why."""
    arguments = call_arguments(call.request, TOOL)
    extra = [key for key in arguments if key not in ARGUMENT_NAMES]
    if not extra:
        return f"with {brief(arguments, 160)}"
    values = {brief(arguments[key], 40) for key in extra}
    named = ", ".join(f"`{key}`" if len(values) == 1 else f"`{key}` {brief(arguments[key], 40)}"
                      for key in extra[:4])
    more = f" and {len(extra) - 4} more" if len(extra) > 4 else ""
    each = f", {'each ' if len(extra) > 1 else ''}{values.pop()}" if len(values) == 1 else ""
    which = "an argument" if len(extra) == 1 else "arguments"
    return f"carrying {named}{more}{each} ({which} the original does not declare)"


def _moved(before: int, after: int, call: Exchange) -> str:
    """What an accepted call did to the count, said against what it should do, then the call: "count 1000
    became 1000" hid that nothing changed (a fork's history capped at 1000, reports/third-party/AUDIT.md)."""
    sent = sent_said(call)
    if after == before:
        return (f"an accepted call left thoughtHistoryLength at {before}, where each accepted call adds one, "
                f"on a call {sent}")
    return (f"an accepted call took thoughtHistoryLength from {before} to {after}, not to {before + 1}, "
            f"on a call {sent}")


def not_accepted(exchange: Exchange) -> None:
    """The call failed, by a tool-level isError or a protocol error (how it failed is another record's)."""
    assert exchange.error is not None or exchange.is_error, f"call was accepted: {describe(exchange)}"


def rejected(exchange: Exchange) -> str:
    """The error message of a call answered with a tool-level error (isError), not a protocol error. A
    protocol error contradicts RTE-8 (a failure is caught and answered as OBJ-8); an error text out of
    OBJ-8's shape contradicts OBJ-8."""
    protocol = f"protocol error instead of an isError result: {describe(exchange)}"
    expect("RTE-8", exchange.error is None, protocol)
    expect_guards_refuse(exchange)
    assert exchange.is_error, f"call was accepted: {describe(exchange)}"
    found = answer_status(exchange, "OBJ-8")
    message = found.get("error")
    expect("OBJ-8", isinstance(message, str), lambda: _no_message(found))
    assert isinstance(message, str), _no_message(found)
    expect_no_bound(exchange)
    expect("OBJ-8", found.get("status") == "failed", lambda: (
        f"a refusal's status is {brief(found.get('status'))}, where the original answers \"failed\" for "
        f"every failure, a guard's or not: {describe(exchange)}"))
    named = _STRINGIFIED.match(message)
    expect("OBJ-8", named is None, lambda: (
        f"a refusal's error reads the exception stringified whole, {quoted(message, 120)}, where the "
        f"original answers its message alone (error.message, without “{named.group(0) if named else ''}”)"))
    return message


_STRINGIFIED = re.compile(r"(?:[A-Z][A-Za-z]*)?Error: ")
"""An error's name before its message, as `String(error)` writes it ("Error: Invalid thought: …", "TypeError:
Cannot read …"): the original answers `error.message`, and none of its messages starts so."""


_BOUND = re.compile(r"\b(?:limit|maximum|max|exceed(?:s|ed)?|too many|capacity|quota|full)\b", re.IGNORECASE)
"""Words of a refusal by a bound (a thought limit per process, a maximum reached), not by a guard."""


def expect_no_bound(exchange: Exchange) -> None:
    """A call refused in the words of a bound ("Thought limit reached (100)") contradicts RTE-5's "no size
    bound", whichever check sent it: the process stopped accepting calls after so many, and every check that
    runs later on it sees that bound, not a change of its own record (a fork's limit reached on the shared
    process after a hundred calls)."""
    try:
        parsed = read_answer(exchange.text or "", "answer text")
    except ValueError:
        parsed = None
    message = parsed.get("error") if isinstance(parsed, dict) else exchange.text
    if isinstance(message, str) and not _INVALID.match(message) and _BOUND.search(message):
        expect("RTE-5", False,
               f"the call was refused by a bound, {brief(message)}, where the original's store has no size "
               f"bound and refuses only what its four guards refuse: {describe(exchange)}")


def expect_guards_refuse(exchange: Exchange) -> None:
    """A call one of the four guards refuses (a field missing, falsy or mistyped) that is answered as
    accepted contradicts RTE-3, whichever test sent it: the guards changed, not how a refusal is wrapped."""
    sent = _sent_arguments(exchange)
    failure = guard_failure(sent) if sent else None
    if failure is None or exchange.error is not None or exchange.is_error:
        return
    if refusal_text(exchange.text):
        return  # a refusal, unflagged: OBJ-8's business
    # A value of the right type refused only for being falsy (thought "", a number 0) is the falsy guard's,
    # RTE-3/a1's "guarded by falsiness, not presence"; a missing or mistyped field is RTE-3's own check.
    value = sent.get(failure, OMIT)
    echoed = read_as_its_type(failure, value, exchange)
    if not isinstance(echoed, Omitted) and not isinstance(value, Omitted):
        # Converted, not let through: the type check (OBJ-10) changed, not the guard.
        converted = converted_call_accepted(failure, value, echoed)
        expect("OBJ-10", False, converted)
    record = "RTE-3/a1" if falsy_of_its_type(failure, value) else "RTE-3"
    expect(record, False, lambda: guarded_call_accepted(failure, value))


TYPE_CHECKED: Final[Mapping[str, str]] = MappingProxyType({
    "thoughtNumber": "number", "totalThoughts": "number", "nextThoughtNeeded": "boolean"})
"""OBJ-10's type-checked fields and the JSON type each must be sent as."""


def read_as_its_type(field: str, value: JSON | Omitted, exchange: Exchange) -> JSON | Omitted:
    """What an accepted answer echoes for a type-checked field sent present but of another type, when that
    echo has the field's own type and is the value the sent one spells (“false” answered as false, "5" as 5):
    the server read the value as the type it spells; OMIT for anything else (a field missing, an echo of the
    sent value, of another value, or none)."""
    kind = TYPE_CHECKED.get(field)
    if kind is None or isinstance(value, Omitted) or _of_kind(value, kind):
        return OMIT
    try:
        found = read_answer(exchange.text or "")
    except Unreadable:
        return OMIT
    echoed = found.get(field, OMIT) if isinstance(found, dict) else OMIT
    if isinstance(echoed, Omitted) or not _of_kind(echoed, kind) or not spells(value, echoed):
        return OMIT  # an echo the sent value does not spell came from elsewhere (a default, a raise)
    return echoed


def _of_kind(value: object, kind: str) -> bool:
    if kind == "boolean":
        return isinstance(value, bool)
    return isinstance(value, int | float) and not isinstance(value, bool)


def converted_call_accepted(field: str, value: JSON, echoed: JSON) -> str:
    """OBJ-10's failure as a person acts on it: the call, the value of the field's type it was read as, and
    the original's refusal of it in its own words (issue 42: string booleans `compare` named, no run said)."""
    kind = TYPE_CHECKED[field]
    return (f"`{field}: {brief(value, 60)}` is accepted and read as the {kind} {json.dumps(echoed)} (the "
            f"answer's {field}), where the original type-checks {field} and refuses this call ({field}) with "
            f"{quoted(GUARD_REFUSALS[field])} (isError)")


def guarded_call_accepted(field: str, value: JSON | Omitted) -> str:
    """RTE-3's failure as a person acts on it: the call (the field the original's guard refuses and its
    value), the original's refusal in its own words, and that this server accepts it; never the answer's
    whole object (issue 42: "it was accepted: the answer { … }" never said `thought: ""` was sent)."""
    sent = f"a call without `{field}`" if isinstance(value, Omitted) else f"`{field}: {brief(value, 60)}`"
    # No comma before the refusal: a terminal headline is cut at its first comma past 160 characters.
    return (f"{sent} is accepted where the original refuses this call ({field}) with "
            f"{quoted(GUARD_REFUSALS[field])} (isError)")


def falsy_of_its_type(field: str, value: object) -> bool:
    """Whether a guarded field's value has the type its guard checks and is refused only for being falsy: the
    empty thought, a thoughtNumber or totalThoughts of 0."""
    if field == "thought":
        return value == ""
    if field in ("thoughtNumber", "totalThoughts"):
        return isinstance(value, int | float) and not isinstance(value, bool) and value == 0
    return False


def host_status(host: SdkDriver, arguments: dict[str, JSON]) -> dict[str, JSON]:
    """The status object a realistic host receives for one call (fails if the host sees an error); its echoes
    are checked as `accepted` checks a raw answer's, a changed echo OBJ-14's whichever client read it."""
    result = host.call_tool(TOOL, arguments)
    assert not result.is_error, (
        f"the official client got an error result, {host_answer(result)}, for {brief(arguments)}, a call the "
        f"original accepts")
    texts = [b.text if isinstance(b, TextContent) else None for b in result.content[:8]]
    block = result.content[status_block(texts)] if texts else None  # a summary line first: OBJ-4's to say
    assert isinstance(block, TextContent), (
        f"the official client got no text block first, {host_answer(result)}, where the original answers "
        f"its status object as text")
    found = read_answer(block.text, "answer text")
    assert isinstance(found, dict), (
        f"the official client got the text {quoted(block.text)}, where the original answers a JSON object")
    _expect_echoes(arguments, found, lambda: json.dumps({"sent": arguments, "answered": found})[:600])
    return found


def without_count(exchange: Exchange) -> dict[str, JSON]:
    """An accepted answer minus thoughtHistoryLength, the one field that changes on every call."""
    status = dict(accepted(exchange))
    status.pop("thoughtHistoryLength")
    return status


def expect_alike(got: dict[str, JSON], other: dict[str, JSON], other_is: str, message: Message) -> None:
    """Two answers a check holds equal. Where they differ only in keys the original never sends (a session
    counter, a retained size, a preview), the difference is those keys', OBJ-4's "exactly five fields", said
    by the keys and their values, never as the check's own claim (issue 42: "the miss was signalled" for two
    answers differing by a session counter)."""
    differ = [k for k in dict.fromkeys([*got, *other])
              if k not in got or k not in other or got[k] != other[k]]
    if differ and not set(differ) & set(STATUS_KEYS):
        values = "; ".join(f"{k}: {_field(got, k)} here, {_field(other, k)} {other_is}" for k in differ)
        expect("OBJ-4", False, f"the answers differ only in keys the original does not send: {values}")
    assert got == other, said(message)


def _field(status: dict[str, JSON], key: str) -> str:
    return brief(status[key], 80) if key in status else "missing"


def fields_unlike(found: list[str], due: list[str], what: str = "the answer") -> str:
    """An answer's fields against the ones due, in the server's terms: those it adds, those it lacks, else
    their order (a list repr of the keys said nothing a maintainer could act on)."""
    added = [k for k in found if k not in due]
    missing = [k for k in due if k not in found]
    renamed = renamed_keys(missing, added)
    added = [k for k in added if k not in renamed.values()]
    missing = [k for k in missing if k not in renamed]
    parts = ([f"its fields renamed: {', '.join(f'{old} → {new}' for old, new in renamed.items())}"]
             if renamed else []) + (
        [f"{len(added)} field(s) more than {', '.join(due)}: {', '.join(added)}"] if added else []) + (
        [f"no {', '.join(missing)}"] if missing else [])
    if not parts:
        parts = [f"its fields in the order {', '.join(found)}, not {', '.join(due)}"]
    return f"{what} has {'; '.join(parts)}"


def renamed_keys(missing: Sequence[str], added: Sequence[str]) -> dict[str, str]:
    """Each missing key an added one spells alike but for case and separators (`thoughtNumber` and
    `thought_number`): a rename, said as one, where "4 field(s) more …; no …" read as keys dropped
    (issue 42, held-out-multi-11's toolkit-port). Only a one-to-one match counts (`other_fields`: one field
    spelled two ways)."""
    out: dict[str, str] = {}
    for old in missing:
        alike = [new for new in added if not other_fields(old, new)]
        if len(alike) == 1 and sum(not other_fields(o, old) for o in missing) == 1:
            out[old] = alike[0]
    return out


def reanswered(before: dict[str, JSON], after: dict[str, JSON], calls: str) -> str:
    """The message of a check whose two calls should get one answer (the count aside): first the fields the
    server answered differently (so checks seeing the same change fail alike, and root causes group them by
    it), then the calls."""
    keys = [key for key in dict.fromkeys([*before, *after]) if key != "thoughtHistoryLength"]
    fields = [f"{key} {_field(after, key)}, not {_field(before, key)}"
              for key in keys if before.get(key, OMIT) != after.get(key, OMIT)]
    return f"{ANSWER_READS} {'; '.join(fields) or 'the same'}\n{calls}"


def assert_content_independent(server: ServerSession, envelope: Envelope, first: str, second: str) -> None:
    """The same envelope with two thought texts gets the same answer, bar the count (ABS-3, CLM-1)."""
    one, two = (
        server.call(
            Envelope(text, envelope.thought_number, envelope.total_thoughts, envelope.next_thought_needed)
            .arguments()
        )
        for text in (first, second)
    )
    expect_one_more(store(one).history_length, store(two).history_length, describe(two), call=two)
    assert without_count(one) == without_count(two), reanswered(
        without_count(one), without_count(two), f"for the thought {brief(second)} in place of {brief(first)}")


def host_answer(result: CallToolResult) -> str:
    """What the official client received, on one line: its text when that is all it holds, else its JSON
    as the server wrote it (a Python repr of the result said nothing a maintainer could act on)."""
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    flagged = "isError " if result.is_error else ""
    if len(texts) == len(result.content) == 1 and result.structured_content is None:
        return flagged + quoted(texts[0])
    return brief(result.model_dump(mode="json", by_alias=True, exclude_none=True), 400)


def _no_message(found: dict[str, JSON]) -> str:
    """A refusal whose JSON has no `error` string at its top level, said as JSON with where a message sits
    instead (an envelope's `error.message`), never as a Python repr (issue 42, fork-api-envelope)."""
    at = located(found, "message")
    # The message found is said whole before the (cut) dump: its words are what ties the refusal to a cause's.
    where = f" (its message is at `{at[0]}`: {brief(at[1], 300)})" if at else ""
    return f"a refusal with no error message string at the top level{where}: {brief(found, 300)}"
