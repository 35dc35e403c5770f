"""What a server declaring the `logging` capability sends once a client asks for everything (debug).

The original declares only `tools` and has no handler for `logging/setLevel`, so it sends nothing of its own
at any level. A fork declaring `logging` may send log messages only after a client sets a level (MCP's
`logging/setLevel`): a suite that never asks never sees them (issue 42, held-out-multi-13's
fork-client-protocol sent each thought as a debug message). One process is asked for "debug", then sent an
accepted thought; what arrives beside the answers is the fork's, compared with the original's nothing.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Final

from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.suite.contradiction import stdout_message
from conformance.suite.rawproc import RawServer

LEVEL: Final = "debug"
"""The level a client asking for every message sets: the lowest MCP defines."""


@dataclass
class AskedLogging:
    """One process asked for debug logging: whether it declares `logging`, its answer to the request, and
    the messages of its own it sent beside its answers after it (the call that followed among them)."""

    declared: bool
    level_answer: JSON = None
    own: list[dict[str, JSON]] = field(default_factory=list)
    call_answer: JSON = None


def declares_logging(initialize: dict[str, JSON]) -> bool:
    """Whether an initialize answer's capabilities hold `logging` (the original's hold only `tools`)."""
    result = initialize.get("result")
    capabilities = result.get("capabilities") if isinstance(result, dict) else None
    return isinstance(capabilities, dict) and "logging" in capabilities


def asked_for_debug(raw: RawServer, arguments: dict[str, JSON]) -> AskedLogging:
    """On `raw` (initialized here when it is not yet): when it declares `logging`, `logging/setLevel` debug,
    then a tools/call with `arguments`; every message of its own read until each answer, and for a moment
    after the call's (a log message sent after its answer)."""
    if not declares_logging(raw.initialize()):
        return AskedLogging(declared=False)
    asked = AskedLogging(declared=True)
    asked.level_answer = _answer(raw, "level", "logging/setLevel", {"level": LEVEL}, asked.own)
    call: JSON = {"name": TOOL, "arguments": arguments}
    asked.call_answer = _answer(raw, "thought", "tools/call", call, asked.own)
    while (line := raw.read_line(timeout=0.3)) is not None and len(asked.own) < 20:
        message = stdout_message(line, "nothing was due")
        if isinstance(message, dict) and "method" in message:
            asked.own.append(message)
    return asked


def _answer(raw: RawServer, tag: str, method: str, params: JSON, own: list[dict[str, JSON]]) -> JSON:
    """The response to one request (its id made of `tag`), the messages of the server's own read before it
    kept in `own`; None when none came within the process's timeout."""
    request_id = f"asked-logging-{tag}"
    raw.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    deadline = time.monotonic() + raw.timeout  # one deadline, however much the server says meanwhile
    while (wait := deadline - time.monotonic()) > 0 and (line := raw.read_line(timeout=wait)) is not None:
        message = stdout_message(line, f"the response to {method} was due")
        if isinstance(message, dict) and "method" in message:
            own.append(message)
        elif isinstance(message, dict) and message.get("id") == request_id:
            if method == "tools/call":
                raw.settle_boxes(method, message)
            return message
    return None


def carries(message: dict[str, JSON], text: str) -> bool:
    """Whether a message's params quote `text` anywhere (a thought sent as a log message's data)."""
    return text in json.dumps(message.get("params"), ensure_ascii=False)
