"""The specification's records judged on one era's meeting: a named check per record, raising a typed outcome.

Each check reads a `Meeting` (`era_meetings.py`) and either returns (the requirement holds), raises
`NotApplicable` (the server did not settle on a revision the requirement belongs to: it cannot break it), or
raises `SpecDeparture` naming the record, its citation and what came back. The suite's `test_spec_*` tests and
the era table (`scripts/era_table.py`) call the same checks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Final

import jsonschema  # type: ignore[import-untyped, unused-ignore]

from conformance.calls.meetings import (
    AFTER_BATCH_ID,
    AFTER_CANCEL_ID,
    BATCH_IDS,
    CANCEL_GRACE,
    CANCELLED_ID,
    UNIMPLEMENTED_VERSION,
    Meeting,
)
from conformance.catalog.spec_records import SpecRecord, default_spec_catalog
from conformance.core.eras import (
    LATEST_HANDSHAKE,
    METHOD_NOT_FOUND,
    REVISIONS,
    STATELESS_REVISION,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from conformance.core.jsontypes import JSON
from conformance.core.served import read_served
from conformance.drivers.wire import NOT_JSON_RPC

HINTS: Final = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
INVALID_PARAMS: Final = -32602
RESERVED_CODES: Final = range(-32099, -32019)
"""-32099..-32020, reserved for the MCP specification at 2026-07-28 (basic § Error Codes)."""
DEFINED_RESERVED_CODES: Final = frozenset({-32020, -32021, -32022})
"""The codes of that range the 2026-07-28 schema defines (HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY,
UNSUPPORTED_PROTOCOL_VERSION)."""
TOOL_NAME: Final = re.compile(r"[A-Za-z0-9_.-]{1,128}")
CACHE_SCOPES: Final = ("public", "private")
REQUEST_CANCELLED: Final = -32800
"""The code servers commonly answer a cancelled request with (LSP's RequestCancelled); MCP defines none."""
HANDLE_ENDINGS: Final = ("Id", "_id", "ID")
"""Endings of a member's name that mark a handle a server may hand out afresh with each answer."""
DIALECTS: Final = {
    str(v.META_SCHEMA.get("$id", v.META_SCHEMA.get("id", ""))).rstrip("#"): v
    for v in (jsonschema.Draft4Validator, jsonschema.Draft6Validator, jsonschema.Draft7Validator,
              jsonschema.Draft201909Validator, jsonschema.Draft202012Validator)
}
"""The JSON Schema dialects the harness validates in, by the `$schema` URI that declares each."""


class NotApplicable(Exception):
    """The requirement does not bind this server with this client."""


class SpecDeparture(AssertionError):
    """The requirement is broken: the record, where the specification states it, and what came back."""

    def __init__(self, spec: SpecRecord, meeting: Meeting, found: str) -> None:
        self.spec = spec
        self.found = found
        super().__init__(f"{spec.id} ({spec.citation}) with the {meeting.label()}: {found}")


def _short(value: object, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "..."


def _result(response: dict[str, JSON]) -> dict[str, JSON] | None:
    result = response.get("result")
    return result if isinstance(result, dict) else None


def _accepted(meeting: Meeting) -> list[dict[str, JSON]]:
    """The results of the calls the tool accepted (isError absent or false)."""
    results = (_result(response) for _, response in meeting.calls)
    return [r for r in results if r is not None and r.get("isError") in (None, False)]


def _answered_version(response: JSON) -> JSON:
    result = _result(response) if isinstance(response, dict) else None
    return result.get("protocolVersion") if result is not None else None


def supported_revisions(meeting: Meeting) -> list[str]:
    """The revisions the server supports, by its own answers: those it answers with when offered them."""
    return [v for v in REVISIONS if _answered_version(meeting.offers.get(v, {})) == v]


def _version_negotiation(meeting: Meeting) -> str | None:
    """Each offer (the client's own, then every revision and two versions no revision defines) is answered
    with the offered revision when the server supports it, else with one it supports. The client's own
    offer answered with an error is the departure, in the server's words (the meeting went on at a version
    offered next); a repeated offer answered with an error says nothing (a server may refuse a repeated
    initialize)."""
    if meeting.initialize is None:
        raise NotApplicable("the client did not initialize")
    if meeting.refused_offer is not None:
        return meeting.refused_offer.said()
    own = meeting.era.revision if meeting.era.connects == "initialize" else LATEST_HANDSHAKE
    supported = supported_revisions(meeting)
    answers: list[tuple[str, JSON]] = [(own, meeting.initialize.get("protocolVersion"))]
    answers += [(offer, _answered_version(response)) for offer, response in meeting.offers.items()
                if "error" not in response]
    told = {offer for offer, _ in answers[1:]}
    for offered, answered in answers:
        if not isinstance(answered, str) or answered not in REVISIONS:
            return (f"offered {offered}, answered protocolVersion {_short(answered)},"
                    " a version no revision defines")
        if offered in supported and answered != offered:
            return (f"offered {offered}, which it supports (an initialize offering it was answered"
                    f" {offered}), answered {answered}")
        if answered != offered and answered in told and answered not in supported:
            again = _short(_answered_version(meeting.offers.get(answered, {})))
            return (f"offered {offered}, answered {answered}, which it does not support"
                    f" (offered {answered}, it answered {again})")
    return None


def _discover_shape(meeting: Meeting) -> str | None:
    result = _result(meeting.discover)
    if result is None:
        return f"server/discover answered {_short(meeting.discover)}"
    supported = result.get("supportedVersions")
    if not isinstance(supported, list) or not all(isinstance(v, str) for v in supported):
        return f"supportedVersions is {_short(supported)}"
    if STATELESS_REVISION not in supported:
        return f"supportedVersions {_short(supported)} lacks {STATELESS_REVISION}"
    capabilities = result.get("capabilities")
    if not isinstance(capabilities, dict) or "tools" not in capabilities:
        return f"capabilities is {_short(capabilities)}"
    return None


def _unsupported_version(meeting: Meeting) -> str | None:
    response = meeting.unimplemented_version or {}
    error = response.get("error")
    if not isinstance(error, dict) or error.get("code") != UNSUPPORTED_PROTOCOL_VERSION:
        return f"a request naming version 1999-01-01 was answered {_short(response)}"
    data = error.get("data")
    supported = data.get("supported") if isinstance(data, dict) else None
    if not isinstance(supported, list) or not all(isinstance(v, str) for v in supported):
        return f"-32022 without a supported list: data {_short(data)}"
    requested = data.get("requested") if isinstance(data, dict) else None
    if requested != UNIMPLEMENTED_VERSION:
        return (f"-32022 whose data.requested is {_short(requested)}, not {UNIMPLEMENTED_VERSION!r}:"
                f" data {_short(data)}")
    return None


def _result_type(meeting: Meeting) -> str | None:
    answers = {"server/discover": meeting.discover, "tools/list": meeting.tools_list}
    answers.update({f"tools/call #{n}": response for n, (_, response) in enumerate(meeting.calls, 1)})
    for what, response in answers.items():
        result = _result(response)
        if result is not None and not isinstance(result.get("resultType"), str):
            return f"the {what} result has no resultType: {_short(result)}"
    return None


def _structured_conforms(meeting: Meeting) -> str | None:
    schema = meeting.output_schema()
    if schema is None:
        raise NotApplicable("the tool declares no outputSchema")
    if not isinstance(schema, dict):
        return f"outputSchema is {_short(schema)}"
    validator = _validator(schema)
    for result in _accepted(meeting):
        if "structuredContent" not in result:
            return f"an accepted call's result has no structuredContent: {_short(result)}"
        error = jsonschema.exceptions.best_match(validator.iter_errors(result["structuredContent"]))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
            return f"structuredContent at {where}: {error.message[:200]}"
    return None


def _validator(schema: dict[str, JSON]) -> jsonschema.protocols.Validator:
    """The schema's validator: the dialect its `$schema` declares (2025-11-25 states so; `$schema` is JSON
    Schema's own way of naming its dialect, so 2025-06-18 reads it too), else 2020-12. A dialect the harness
    does not know is not weighed."""
    if "$schema" not in schema:
        return jsonschema.Draft202012Validator(schema)
    declared = schema["$schema"]
    cls = DIALECTS.get(declared.rstrip("#")) if isinstance(declared, str) else None
    if cls is None:
        raise NotApplicable(f"outputSchema declares $schema {_short(schema['$schema'])}, a dialect the"
                            " harness does not know")
    return cls(schema)  # type: ignore[no-any-return, unused-ignore]


def _structured_mirrored(meeting: Meeting) -> str | None:
    structured = [r for r in _accepted(meeting) if "structuredContent" in r]
    if not structured:
        raise NotApplicable("no result carried structuredContent")
    for result in structured:
        texts = [
            block.get("text")
            for block in result.get("content") or []  # type: ignore[union-attr]
            if isinstance(block, dict) and block.get("type") == "text"
        ]
        mirrored = False
        for text in texts:
            try:
                mirrored = mirrored or read_served(text, "answer text") == result["structuredContent"]  # type: ignore[arg-type]
            except (TypeError, ValueError):
                continue
        if not mirrored:
            return (f"structuredContent {_short(result['structuredContent'])} is in no text block:"
                    f" {_short(texts)}")
    return None


def _tool_results(meeting: Meeting) -> str | None:
    for _, response in meeting.calls:
        result = _result(response)
        if result is None:
            continue  # a JSON-RPC error is the other way to refuse arguments
        content = result.get("content")
        if not isinstance(content, list) or not all(
            isinstance(b, dict) and isinstance(b.get("type"), str)
            and (b.get("type") != "text" or isinstance(b.get("text"), str))
            for b in content
        ):
            return f"content is {_short(content)}"
        if "isError" in result and not isinstance(result["isError"], bool):
            return f"isError is {_short(result['isError'])}"
    if len(_accepted(meeting)) < 2:
        return f"an accepted call was answered as an error: {_short([r for _, r in meeting.calls[:2]])}"
    return None


def _tool_list(meeting: Meeting) -> str | None:
    """Each tool against the Tool type of the revision the server settled on: members a revision does not
    define are not weighed there (annotations from 2025-03-26, title and outputSchema from 2025-06-18)."""
    if not meeting.tools:
        return f"tools/list answered {_short(meeting.tools_list)}"
    revision = meeting.negotiated or LATEST_HANDSHAKE
    since = REVISIONS.index(revision) if revision in REVISIONS else len(REVISIONS) - 1
    for tool in meeting.tools:
        found = _tool_types(tool, since)
        if found is not None:
            return found
    return None


def _tool_types(tool: JSON, since: int) -> str | None:
    """`since` is the settled revision's place in REVISIONS (0: 2024-11-05)."""
    if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
        return f"a tool without a string name: {_short(tool)}"
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return f"inputSchema is {_short(schema)}"
    if "description" in tool and not isinstance(tool["description"], str):
        return f"description is {_short(tool['description'])}"
    if since >= REVISIONS.index("2025-06-18"):
        if "title" in tool and not isinstance(tool["title"], str):
            return f"title is {_short(tool['title'])}"
        output = tool.get("outputSchema")
        stateless = since >= REVISIONS.index(STATELESS_REVISION)
        if "outputSchema" in tool and not isinstance(output, dict):
            return f"outputSchema is {_short(output)}"
        if "outputSchema" in tool and not stateless and output.get("type") != "object":  # type: ignore[union-attr]
            return f"outputSchema is {_short(output)}, not of type \"object\""
    if since >= REVISIONS.index("2025-03-26") and "annotations" in tool:
        annotations = tool["annotations"]
        if not isinstance(annotations, dict):
            return f"annotations is {_short(annotations)}"
        if "title" in annotations and not isinstance(annotations["title"], str):
            return f"annotations.title is {_short(annotations['title'])}"
        for hint in HINTS:
            if hint in annotations and not isinstance(annotations[hint], bool):
                return f"annotations.{hint} is {_short(annotations[hint])}"
    return None


def _unknown_method(meeting: Meeting) -> str | None:
    error = meeting.unknown_method.get("error")
    if isinstance(error, dict) and error.get("code") == METHOD_NOT_FOUND:
        return None
    return f"an unknown method was answered {_short(meeting.unknown_method)}"


def _batch(meeting: Meeting) -> str | None:
    """2025-03-26 only: both pings of the batch answered. No later revision obliges a server to refuse one."""
    answered: set[JSON] = set()
    for frame in meeting.batch_frames:
        for message in frame if isinstance(frame, list) else [frame]:
            if isinstance(message, dict) and "result" in message and isinstance(message.get("id"), int):
                answered.add(message["id"])
    if not all(request_id in answered for request_id in BATCH_IDS):
        return f"a batch of two pings got {_short(meeting.batch_frames)} (before ping {AFTER_BATCH_ID})"
    return None


def _ping(meeting: Meeting) -> str | None:
    result = _result(meeting.ping)
    if result is None or set(result) - {"_meta"}:
        return f"ping answered {_short(meeting.ping)}"
    return None


def _unknown_tool(meeting: Meeting) -> str | None:
    response = meeting.unknown_tool
    if isinstance(response.get("error"), dict) and "result" not in response:
        return None
    return f"tools/call of a tool it does not list was answered {_short(response)}"


def _tools_capability(meeting: Meeting) -> str | None:
    if meeting.initialize is None:
        raise NotApplicable("the client did not initialize")
    capabilities = meeting.initialize.get("capabilities")
    tools = capabilities.get("tools") if isinstance(capabilities, dict) else None
    if not isinstance(tools, dict):
        return f"initialize declared capabilities {_short(capabilities)}"
    return None


def _input_validation(meeting: Meeting) -> str | None:
    """The meeting's last call ({"thought": 1}) fails the tool's input schema."""
    if not meeting.calls:
        return "no call was answered"
    arguments, response = meeting.calls[-1]
    result = _result(response)
    if result is None or result.get("isError") is not True:
        return f"the call {_short(arguments)}, which its inputSchema refuses, was answered {_short(response)}"
    return None


def _caching_hints(meeting: Meeting) -> str | None:
    for what, response in (("server/discover", meeting.discover), ("tools/list", meeting.tools_list)):
        result = _result(response)
        if result is None:
            return f"{what} answered {_short(response)}"
        ttl = result.get("ttlMs")
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
            return f"the {what} result's ttlMs is {_short(ttl)}"
        if result.get("cacheScope") not in CACHE_SCOPES:
            return f"the {what} result's cacheScope is {_short(result.get('cacheScope'))}"
    return None


def _missing_meta(meeting: Meeting) -> str | None:
    if not meeting.missing_meta:
        raise NotApplicable("the client does not send _meta")
    for name, response in meeting.missing_meta.items():
        error = response.get("error")
        if not isinstance(error, dict) or error.get("code") != INVALID_PARAMS:
            return f"tools/list with {name} was answered {_short(_reply_of(response))}"
    return None


def _reply_of(response: dict[str, JSON]) -> dict[str, JSON]:
    return {k: v for k, v in response.items() if k not in ("jsonrpc", "id")}


def _log_without_level(meeting: Meeting) -> str | None:
    for message in meeting.unsolicited:
        if isinstance(message, dict) and message.get("method") == "notifications/message":
            return f"sent {_short(message)} to requests that carried no logLevel"
    return None


def _reserved_codes(meeting: Meeting) -> str | None:
    answers: list[tuple[str, JSON]] = [
        ("server/discover", meeting.discover), ("tools/list", meeting.tools_list),
        ("the unknown method", meeting.unknown_method), ("the unknown tool", meeting.unknown_tool),
        ("the unimplemented version", meeting.unimplemented_version or {}),
    ]
    answers += [(f"tools/call #{n}", response) for n, (_, response) in enumerate(meeting.calls, 1)]
    answers += [(f"tools/list with {name}", response) for name, response in meeting.missing_meta.items()]
    for what, response in answers:
        error = response.get("error") if isinstance(response, dict) else None
        code = error.get("code") if isinstance(error, dict) else None
        if isinstance(code, int) and code in RESERVED_CODES and code not in DEFINED_RESERVED_CODES:
            return f"{what} was answered with code {code}, reserved and undefined: {_short(error)}"
    return None


def _stdout_messages(meeting: Meeting) -> str | None:
    """Judged even when the meeting stopped: a line that is not a JSON-RPC message, read past to the answer
    after it or what stopped the meeting."""
    for failure in (meeting.stray_stdout, meeting.failure):
        if failure is not None and failure.startswith("ProtocolViolation") and NOT_JSON_RPC in failure:
            return f"stdout carried a line that is {failure.split(NOT_JSON_RPC, 1)[1].strip()[:300]}"
    if meeting.failure is not None:
        return f"the meeting stopped: {meeting.failure}"
    return None


def _tool_order(meeting: Meeting) -> str | None:
    first = [t.get("name") for t in meeting.tools if isinstance(t, dict)]
    result = meeting.tools_list_again.get("result")
    listed = result.get("tools") if isinstance(result, dict) else None
    again = [t.get("name") for t in listed if isinstance(t, dict)] if isinstance(listed, list) else None
    if again != first:
        return f"tools/list named {_short(first)}, then {_short(again)}"
    return None


def _exits_at_end_of_input(meeting: Meeting) -> str | None:
    if meeting.end_of_input is None:
        said = f"still running {meeting.end_wait:g} s after its stdin was closed"
        if meeting.end_outlived is not None:
            said += f" (another process of it was still running {meeting.end_outlived:g} s after it)"
        return said
    if isinstance(meeting.end_of_input, str):
        return f"the meeting did not reach the end of input: {meeting.end_of_input}"
    return None


def _tool_names(meeting: Meeting) -> str | None:
    names = [t.get("name") for t in meeting.tools if isinstance(t, dict)]
    for name in names:
        if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
            return f"tool name {_short(name)}"
    repeated = sorted({n for n in names if isinstance(n, str) and names.count(n) > 1})
    if repeated:
        return f"tool names listed more than once: {_short(repeated)}"
    return None


def _answer_of(response: dict[str, JSON]) -> JSON:
    """What a tools/call answered, as the state probe weighs it: the result's content, structuredContent and
    isError (or the error), JSON texts read as JSON, `_meta` and string values of `…Id` members set aside."""
    result = _result(response)
    if result is None:
        error = response.get("error")
        return {"error": _unhandled(error.get("code") if isinstance(error, dict) else error)}
    content = result.get("content")
    blocks: list[JSON] = []
    for block in content if isinstance(content, list) else [content]:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            try:
                blocks.append({"json": _unhandled(read_served(block["text"], "answer text"))})  # type: ignore[arg-type]
                continue
            except (TypeError, ValueError):
                pass
        blocks.append(_unhandled(block))
    answer: dict[str, JSON] = {"content": blocks}
    for member in ("structuredContent", "isError"):
        if member in result:
            answer[member] = _unhandled(result[member])
    return answer


def _unhandled(value: JSON) -> JSON:
    """`value` without the string values of members named as handles (`historyId`, `session_id`, ...)."""
    if isinstance(value, dict):
        return {k: _unhandled(v) for k, v in value.items()
                if not (isinstance(v, str) and k.endswith(HANDLE_ENDINGS))}
    if isinstance(value, list):
        return [_unhandled(v) for v in value]
    return value


def _state_by_identifier(meeting: Meeting) -> str | None:
    """The first call sent again, no identifier in it: a different answer is state the server reached through
    the connection or the process, not through anything the client passed."""
    if not meeting.calls or not meeting.repeated_call:
        return "the meeting made no call to repeat"
    arguments, first = meeting.calls[0]
    before, again = _answer_of(first), _answer_of(meeting.repeated_call)
    if before != again:
        return (f"the same call {_short(arguments, 160)}, no identifier in it, was answered"
                f" {_short(before, 220)} first and {_short(again, 220)} after the meeting's other calls:"
                " state kept across requests that no identifier the client passed names")
    return None


def _no_response_after_cancel(meeting: Meeting) -> str | None:
    """Race-free: a response to the cancelled call departs only when the server had demonstrably read the
    notification before sending it (it came after the answer to the request written after the notification,
    or it is an error about the cancellation). One that came first may have been sent before the server read
    the notification, which every revision allows: nothing is shown."""
    order = [frame.get("id") for frame in meeting.cancellation if isinstance(frame, dict)]
    if AFTER_CANCEL_ID not in order:
        return (f"the tools/list written after the notification was not answered:"
                f" {_short(meeting.cancellation)}")
    if CANCELLED_ID not in order:
        return None
    response = next(f for f in meeting.cancellation if isinstance(f, dict) and f.get("id") == CANCELLED_ID)
    error = response.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if code == REQUEST_CANCELLED or (isinstance(message, str) and "cancel" in message.lower()):
        return (f"the cancelled tools/call was answered with an error about its cancellation:"
                f" {_short(response)}")
    if order.index(CANCELLED_ID) > order.index(AFTER_CANCEL_ID):
        return (f"the cancelled tools/call was answered {_short(_reply_of(response), 200)} after the"
                f" tools/list written after the notification (within {CANCEL_GRACE:g} s of it): the server"
                " had read the notification and still answered the call")
    raise NotApplicable("the cancelled tools/call was answered before the request written after the"
                        " notification: it may have finished before the server read the notification,"
                        " the race the revision allows; nothing shown")


CHECKS: Final[dict[str, Callable[[Meeting], str | None]]] = {
    "SPEC-1": _version_negotiation,
    "SPEC-2": _discover_shape,
    "SPEC-3": _unsupported_version,
    "SPEC-4": _result_type,
    "SPEC-5": _structured_conforms,
    "SPEC-6": _structured_mirrored,
    "SPEC-7": _tool_results,
    "SPEC-8": _tool_list,
    "SPEC-9": _unknown_method,
    "SPEC-10": _batch,
    "SPEC-11": _ping,
    "SPEC-12": _unknown_tool,
    "SPEC-13": _tools_capability,
    "SPEC-14": _input_validation,
    "SPEC-15": _caching_hints,
    "SPEC-16": _missing_meta,
    "SPEC-17": _log_without_level,
    "SPEC-18": _reserved_codes,
    "SPEC-19": _tool_names,
    "SPEC-20": _stdout_messages,
    "SPEC-21": _tool_order,
    "SPEC-22": _exits_at_end_of_input,
    "SPEC-23": _state_by_identifier,
    "SPEC-24": _no_response_after_cancel,
    "SPEC-25": _no_response_after_cancel,
}
"""One check per record of fixtures/spec_records.yaml (`tests/fast/test_spec_records.py` pairs them)."""

APPLIES_BY_OFFER: Final = frozenset({"SPEC-1"})
"""Records about the handshake itself: they bind whatever the server answers, once the client initialized."""
TRANSPORT: Final = frozenset({"SPEC-20"})
"""Records of the stdio transport itself: they bind in every era, settled or not, and read a stopped meeting
(what stopped it is their finding)."""


def judge(record_id: str, meeting: Meeting) -> None:
    """Return when `record_id` holds on `meeting`; raise `NotApplicable` or `SpecDeparture` otherwise."""
    spec = default_spec_catalog().get(record_id)
    if meeting.failure is not None and record_id not in TRANSPORT:
        raise SpecDeparture(spec, meeting, f"the meeting stopped: {meeting.failure}")
    if record_id not in APPLIES_BY_OFFER | TRANSPORT and not spec.applies_to(meeting.negotiated):
        settled = meeting.negotiated or "no revision"
        raise NotApplicable(f"not applicable: the {meeting.era.name} client settled on {settled}, "
                            f"{spec.id} binds {', '.join(spec.revisions)}")
    found = CHECKS[record_id](meeting)
    if found is not None:
        raise SpecDeparture(spec, meeting, found)


def verdicts(meeting: Meeting) -> dict[str, str]:
    """Every spec record on one meeting: `holds`, `n/a` or `deviates: <what came back>`."""
    out: dict[str, str] = {}
    for record_id in CHECKS:
        try:
            judge(record_id, meeting)
        except NotApplicable:
            out[record_id] = "n/a"
        except SpecDeparture as departure:
            out[record_id] = f"deviates: {departure.found}"
        else:
            out[record_id] = "holds"
    return out
