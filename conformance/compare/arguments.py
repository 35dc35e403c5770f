"""The argument-compatibility stop, beside the tool-name stop: the preflight sends the original's canonical
valid call once. A port that refuses it because it spells the arguments otherwise (`thought_number` for
`thoughtNumber`) would refuse every call of the suite, and a run would print dozens of departures that all say
"refused"; the run stops instead, naming both sides' fields, and says which spelling the target accepts. A
refusal for another reason (the call spells every field the target requires) is a departure to check, not a
stop. The spellings looked for are core/spellings.py's: snake_case, kebab-case, PascalCase, lower case, UPPER
case."""

from __future__ import annotations

import json
import time
from typing import Final

from conformance.core.jsontypes import JSON
from conformance.core.printable import safe
from conformance.core.protocol import (
    ARGUMENT_NAMES,
    CLIENT_INFO,
    PROBE_ARGUMENTS,
    PROTOCOL_VERSION,
    TOOL,
    the_tool,
)
from conformance.core.served import Unreadable, read_answer
from conformance.core.spellings import detected, every_spelling, spelling_map, spelling_named
from conformance.core.words import first_and_more
from conformance.drivers.errors import DriverError, ProtocolViolation, ServerExited
from conformance.drivers.wire import Exchange, WireDriver
from conformance.report.model import ArgumentCheck
from conformance.targets.specs import Target

CALL_TIMEOUT: Final = 5.0
"""At most this long for the preflight's call: a target that takes longer is left to the suite's checks."""
_NAMES: Final = 32
_REFUSAL: Final = 300


def answers_the_original_name(driver: WireDriver) -> bool:
    """Whether a server that lists its tool under another name still answers the original's call to
    `TOOL` with a JSON object (its answer's text read through a markdown fence): then only the listing
    departs (CMP-2) and every other record can be checked, by `run` and `compare` alike. An unknown-tool
    answer ("Unknown tool: …"), a refusal or a protocol error keeps the tool-name stop: there is no tool to
    check."""
    try:
        answer = driver.call_tool(TOOL, dict(PROBE_ARGUMENTS), timeout=min(driver.timeout, CALL_TIMEOUT))
    except DriverError:
        return False
    if answer.error is not None or answer.is_error or answer.text is None:
        return False
    try:
        read = read_answer(answer.text)
    except Unreadable:
        return False
    return isinstance(read, dict) and not error_object(read)


ANSWER_FIELDS: Final = ("thoughtNumber", "totalThoughts", "nextThoughtNeeded", "branches",
                         "thoughtHistoryLength")
"""The fields of the original's answer to its call."""


def error_object(answer: dict[str, JSON]) -> bool:
    """An answer that is an error in JSON, not isError: an `error` key (in any letter case) and none of the
    original's answer's fields in any spelling, as a server answering every name it does not dispatch with
    {"error": "Tool sequentialthinking not found"} does (spideynolove's sequential-thinking-mcp-v2): an
    unknown-tool answer, no tool."""
    keys = {str(key) for key in answer}
    return any(key.lower() == "error" for key in keys) and not keys & every_spelling(ANSWER_FIELDS)


def check_arguments(driver: WireDriver, listing: Exchange, mapped_from: str | None) -> ArgumentCheck:
    """Send the original's call (through the driver's mapping, if any) and judge the answer."""
    renames = dict(driver.renamer.renames) if driver.renamer is not None else {}
    sent = [renames.get(name, name) for name in PROBE_ARGUMENTS]
    required, properties, nested = _schema(listing.result)
    try:
        answer = driver.call_tool(TOOL, dict(PROBE_ARGUMENTS), timeout=min(driver.timeout, CALL_TIMEOUT))
    except DriverError:
        return ArgumentCheck(accepted=None, sent=sent, required=required, properties=properties,
                             arguments_map=renames, arguments_map_from=mapped_from)
    refusal = _refusal(answer)
    check = ArgumentCheck(accepted=True, sent=sent, required=required, properties=properties,
                          arguments_map=renames, arguments_map_from=mapped_from)
    if refusal is None:
        return check
    missing = [name for name in required if name not in sent]
    spelling = detected([*properties, *required]) if not renames else None
    respelled = spelling_map(spelling) if spelling is not None else {}
    spelled = {k: v for k, v in respelled.items() if v in properties or v in required}
    unknown = [name for name in sent if properties and name not in properties]
    others = [name for name in properties if name not in ARGUMENT_NAMES]
    inside = {k: v for k, v in nested.items() if k in missing}
    if not missing and not spelled and not (unknown and others):
        return check  # refused for what it says, not for its names: the suite's checks say what departs
    words = " ".join(refusal.split())
    check = check.model_copy(update={"accepted": False, "refusal": safe(words, _REFUSAL), "nested": inside})
    if spelled and not renames and _accepts(driver, spelled):
        check = check.model_copy(update={"spelling": spelled})
    return check


def stop_sentence(check: ArgumentCheck) -> str:
    """The one line of the stop: both sides' fields, the refusal's words, and what to run instead."""
    if check.required:
        takes = "requires " + ", ".join(
            f"{name} (an object of {', '.join(check.nested[name])})" if name in check.nested else name
            for name in check.required)
    else:
        named = ", ".join(check.properties) or "no argument it names"
        takes = f"takes {named} (its inputSchema requires none)"
    said = (
        f"the server's `{TOOL}` {takes}; the original's call ({', '.join(check.sent)}) is refused: "
        f"“{check.refusal}”"
    )
    if check.arguments_map:
        return f"{said}, even through --arguments-map {check.arguments_map_from}"
    if check.spelling:
        # The call's own fields, respelled: the whole mapping (nine names) pushed the conclusion, what to run,
        # past what the summary's sentence keeps (chinng-py).
        shown = [check.spelling[name] for name in PROBE_ARGUMENTS if name in check.spelling]
        rest = [spelled for name, spelled in check.spelling.items() if name not in PROBE_ARGUMENTS]
        names = first_and_more([*shown, *rest], len(shown))
        spelling = spelling_named(check.spelling) or "FILE"
        return (f"{said}; spelled {spelling} ({names}) it is accepted (one call confirmed it): rerun with "
                f"--arguments-map {spelling} to check everything else")
    if check.nested:
        inside = ", ".join(check.nested)
        return (f"{said}; it takes the call's fields one level down, inside {inside}, which --arguments-map "
                "cannot express (it renames the original's names, it does not nest them), so nothing else of "
                "this server can be checked")
    return f"{said}; give the target's names with --arguments-map FILE to check everything else"



def map_not_used(mapped_from: str) -> str:
    """The tool-name stop's clause under `--arguments-map`: the user passed a mapping and the run stopped
    before any call went through it, so say that it was not used and why (a mapping renames the arguments
    of the original's call; it cannot send that call to a tool the server does not offer)."""
    return (f"; --arguments-map {safe(mapped_from, 200)} was not used: it renames the arguments of the "
            f"original's {TOOL} call, and this server offers no {TOOL} tool to send it to (a mapping renames "
            "arguments, not the tool)")

def _accepts(driver: WireDriver, spelled: dict[str, str]) -> bool:
    """Whether the target accepts the original's call with `spelled` names: the spelling confirmed."""
    arguments: dict[str, JSON] = {spelled.get(k, k): v for k, v in PROBE_ARGUMENTS.items()}
    try:
        answer = driver.call_tool(TOOL, arguments, timeout=min(driver.timeout, CALL_TIMEOUT))
    except DriverError:
        return False
    return _refusal(answer) is None


def _refusal(answer: Exchange) -> str | None:
    """A refusal's words (a JSON-RPC error, or a result with isError); None when the call was accepted."""
    if answer.error is not None:
        return str(answer.error.get("message"))
    result = answer.result
    if result is None or not answer.is_error:
        return None
    content = result.get("content")
    first = content[0] if isinstance(content, list) and content else None
    text = first.get("text") if isinstance(first, dict) else None
    return text if isinstance(text, str) else "isError with no text"


def _schema(listed: object) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """The tool's inputSchema as listed: its required fields, its properties' names and, for a property
    that is an object (inline, or a local `#/$defs/...` reference, as FastMCP lists a pydantic model
    argument) naming any of the call's fields in any spelling, those fields (all bounded)."""
    tool = the_tool(listed.get("tools") if isinstance(listed, dict) else None)
    if tool is None:
        return [], [], {}
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return [], [], {}
    required = schema.get("required")
    properties = schema.get("properties")
    names = [safe(str(n), 64) for n in required[:_NAMES]] if isinstance(required, list) else []
    listed = list(properties)[:_NAMES] if isinstance(properties, dict) else []
    props = [safe(str(n), 64) for n in listed]
    nested: dict[str, list[str]] = {}
    for name in listed:
        fields = _object_fields(schema, properties[name]) if isinstance(properties, dict) else []
        if set(fields) & every_spelling(ARGUMENT_NAMES):
            nested[safe(str(name), 64)] = [safe(f, 64) for f in fields]
    return names, props, nested


def _object_fields(schema: dict[str, JSON], prop: object) -> list[str]:
    """The property names of an object schema, given inline or as one local reference (`#/$defs/X`,
    `#/definitions/X`) into the tool's own schema; nothing else is followed."""
    if isinstance(prop, dict) and isinstance(prop.get("$ref"), str):
        ref = str(prop["$ref"])
        parts = ref.split("/")
        if len(parts) == 3 and parts[0] == "#" and parts[1] in ("$defs", "definitions"):
            defs = schema.get(parts[1])
            prop = defs.get(parts[2]) if isinstance(defs, dict) else None
        else:
            return []
    fields = prop.get("properties") if isinstance(prop, dict) else None
    return [str(f) for f in list(fields)[:_NAMES]] if isinstance(fields, dict) else []


_FIELDS: Final = 16
"""At most this many of a look-alike tool's fields named (each at most 64 characters)."""


def _first_names(names: list[str]) -> str:
    """The first `_FIELDS` names, then how many more there are ("…, and 4 more"), never a silent cut."""
    return first_and_more([safe(n, 64) for n in names], _FIELDS, more=", and {} more")


def lookalike(result: object) -> str:
    """The clause naming the fields of the listed tool that looks most like the original's (the most of
    its argument names among its schema's properties, in any spelling, at least one), beside the
    original's own required fields; nothing when no tool takes any of them."""
    tools = result.get("tools") if isinstance(result, dict) else None
    ours = every_spelling(ARGUMENT_NAMES)
    best: tuple[int, str, list[str], list[str]] = (0, "", [], [])
    for tool in tools if isinstance(tools, list) else []:
        schema = tool.get("inputSchema") if isinstance(tool, dict) else None
        properties = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(properties, dict):
            continue
        names = [str(name) for name in properties]
        listed = schema.get("required") if isinstance(schema, dict) else None
        required = [str(n) for n in listed if str(n) in properties] if isinstance(listed, list) else []
        shared = len(ours & set(names))
        if shared > best[0]:
            best = (shared, str(tool.get("name")), names, required)
    shared, name, names, required = best
    if not shared:
        return ""
    if set(names) == set(ARGUMENT_NAMES) and set(required) == set(PROBE_ARGUMENTS):
        # xd3an-py: nine fields said twice, field by field, to say that only the tool's name differs.
        return (f"; its {safe(name, 64)} takes exactly the original's fields and requires the same "
                f"{', '.join(PROBE_ARGUMENTS)}: only its name differs from the original's {TOOL}")
    fields = _first_names(names)
    # Both sides' required fields (issue 46): a port's own required field (axefield-ts's and promptly-ts's
    # `stage`) is what a call spelled as the original's would still lack.
    needs = f" (requiring {_first_names(required)})" if required else ""
    return (f"; its {safe(name, 64)} takes {fields}{needs}, where the original's {TOOL} takes "
            f"{', '.join(PROBE_ARGUMENTS)}")


def listed_past_stray_lines(target: Target, timeout: float) -> str:
    """The tool-name stop's clause ("; and it does not offer …") for a target stopped for a stray stdout line,
    read on a process of its own that skips such lines: a start message before the answer to initialize
    (uookong-ts) hid that no `sequentialthinking` is offered, the stop its maintainer met next. Empty when
    the tool is offered or the target does not answer within `timeout`."""
    deadline = time.monotonic() + timeout
    initialize: dict[str, JSON] = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                                   "clientInfo": dict(CLIENT_INFO)}
    answered = False
    try:
        with target.wire(timeout=timeout) as driver:
            driver.send_raw(_frame(1, "initialize", initialize))
            if _answer_to(driver, 1, deadline) is None:
                return ""
            answered = True
            driver.notify("notifications/initialized")
            driver.send_raw(_frame(2, "tools/list"))
            listing = _answer_to(driver, 2, deadline)
    except ServerExited as exc:
        return exited_clause(exc.returncode, not answered) if exc.returncode is not None else ""
    except DriverError:
        return ""
    result = listing.get("result") if listing is not None else None
    tools = result.get("tools") if isinstance(result, dict) else None
    if not isinstance(tools, list):
        return ""
    names = [str(t.get("name")) for t in tools if isinstance(t, dict)]
    if TOOL in names:
        return ""
    offered = ", ".join(names) or "no tools"
    return f"; and it does not offer the {TOOL} tool (it offers: {offered})" + lookalike(result)


def exited_clause(returncode: int, before_initialize: bool) -> str:
    """"; and it exited with status N …" for a target stopped for a stray stdout line that then ended: the
    line was its last words (a port printing its import error to stdout and exiting 1), so the stop says the
    server is gone, not only that it is noisy, and the start-up hints read that line."""
    when = "before answering initialize" if before_initialize else "without answering"
    return f"; and it exited with status {returncode} {when}"


def _frame(request_id: int, method: str, params: dict[str, JSON] | None = None) -> bytes:
    message: dict[str, JSON] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def _answer_to(driver: WireDriver, request_id: int, deadline: float) -> dict[str, JSON] | None:
    """The answer to `request_id`, lines that are not JSON-RPC and other messages skipped; None when none
    came by `deadline`."""
    while (left := deadline - time.monotonic()) > 0:
        line = driver.read_frame(left)
        try:
            message = driver.read_parsed(line)
        except ProtocolViolation:
            continue
        if message.get("id") == request_id:
            return message
    return None
