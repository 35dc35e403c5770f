"""A dual-era server (initialize for the handshake revisions, `server/discover` and `_meta` for 2026-07-28)
that meets every spec record, until `--break NAME` (repeatable) breaks one requirement:

  unknown-tool-result  an unknown tool is a result with isError (SPEC-12), not a JSON-RPC error
  no-tools-capability  initialize declares capabilities {} (SPEC-13)
  validation-as-error  an argument the input schema refuses is a JSON-RPC -32602 (SPEC-14)
  no-cache-hints       server/discover and tools/list carry no ttlMs/cacheScope (SPEC-15)
  meta-unchecked       a request missing a required `_meta` field is served (SPEC-16)
  log-always           a notifications/message before every answer (SPEC-17)
  reserved-code        an unknown tool is error -32050, reserved and undefined (SPEC-18)
  bad-tool-name        a second tool named "bad name!" (SPEC-19)
  no-requested         -32022 without data.requested (SPEC-3)
  draft07-output       draft-07 outputSchema, a `$ref` sibling 2020-12 would apply (holds: read as draft-07)
  output-invalid       the same schema, and structured content no dialect accepts (SPEC-5)
  array-output         outputSchema of type array and array structured content (SPEC-8 before 2026-07-28)
  garbage-stdout       a line that is not JSON on stdout before answering an unknown method (SPEC-20)
  shuffled-tools       two tools, listed in the other order each time (SPEC-21)
  ignore-eof           keeps running when its stdin closes (SPEC-22)
  process-history      one thought history per process: each call answers its length (SPEC-23)
  history-by-id        one history per `historyId` the client passes, a call naming none its own (holds)
  answer-cancelled     a request cancelled in the chunk that brings it is answered anyway, 0.05 s later,
                       as a server running calls concurrently and ignoring cancels does (SPEC-24, SPEC-25)
  cancel-error         such a request is answered at once with error -32800 "Request cancelled" (SPEC-24, 25)

Unbroken, it keeps no state between requests and, as the TypeScript SDK does, reads a chunk of stdin whole
before answering any of it: a request a `notifications/cancelled` of the same chunk names gets no answer.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from typing import Any

Message = dict[str, Any]
HANDSHAKE = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
STATELESS = "2026-07-28"
PREFIX = "io.modelcontextprotocol/"
INFO = {"name": "spec_breaker", "version": "0"}
BREAKS = ("unknown-tool-result", "no-tools-capability", "validation-as-error", "no-cache-hints",
          "meta-unchecked", "log-always", "reserved-code", "bad-tool-name", "no-requested",
          "draft07-output", "output-invalid", "array-output", "garbage-stdout", "shuffled-tools",
          "ignore-eof", "process-history", "history-by-id", "answer-cancelled", "cancel-error")
LATE = 0.05
"""Seconds after which `answer-cancelled` answers a cancelled request."""
WRITING = threading.Lock()
DRAFT07 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {"anything": {}},
    "type": "object",
    "properties": {"n": {"$ref": "#/definitions/anything", "type": "string"}},
}
"""draft-07 ignores the siblings of `$ref`, so {"n": 1} is valid here; 2020-12 applies them and refuses it."""


def write(message: Message) -> None:
    with WRITING:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--break", dest="breaks", action="append", default=[], choices=BREAKS)
    breaks = set(parser.parse_args().breaks)

    tool: Message = {"name": "sequentialthinking", "description": "test double",
                     "inputSchema": {"type": "object", "properties": {"thought": {"type": "string"}},
                                     "required": ["thought"]}}
    structured: Any = None
    if breaks & {"draft07-output", "output-invalid"}:
        tool["outputSchema"] = DRAFT07
        structured = {"n": 1}
        if "output-invalid" in breaks:
            tool["outputSchema"] = {**DRAFT07, "required": ["missing"]}
    elif "array-output" in breaks:
        tool["outputSchema"] = {"type": "array", "items": {"type": "integer"}}
        structured = [1, 2]
    tools = [tool, {**tool, "name": "bad name!"}] if "bad-tool-name" in breaks else [tool]
    if "shuffled-tools" in breaks:
        tools.append({**tool, "name": "second_tool"})
    if "history-by-id" in breaks:
        tool["inputSchema"]["properties"]["historyId"] = {"type": "string"}  # type: ignore[index]
    listed = 0
    histories: dict[str, int] = {}

    def answer(message: Message, stateless: bool) -> Message | None:
        method = message.get("method")
        params = message.get("params") or {}
        base: Message = {"resultType": "complete"} if stateless else {}
        cacheable = base if "no-cache-hints" in breaks else {**base, "ttlMs": 0, "cacheScope": "private"}

        def error(code: int, text: str, data: Any = None) -> Message:
            err: Message = {"code": code, "message": text}
            if data is not None:
                err["data"] = data
            return {"error": err}

        if stateless:
            meta = params.get("_meta") or {}
            required = (PREFIX + "protocolVersion", PREFIX + "clientCapabilities")
            if "meta-unchecked" not in breaks and any(key not in meta for key in required):
                return error(-32602, "Invalid params: _meta lacks a required field")
            requested = meta.get(PREFIX + "protocolVersion", STATELESS)
            if requested != STATELESS:
                data: Message = {"supported": [STATELESS]}
                if "no-requested" not in breaks:
                    data["requested"] = requested
                return error(-32022, "Unsupported protocol version", data)
        if method == "initialize" and not stateless:
            offered = params.get("protocolVersion")
            capabilities: Message = {} if "no-tools-capability" in breaks else {"tools": {}}
            return {"result": {"protocolVersion": offered if offered in HANDSHAKE else HANDSHAKE[-1],
                               "capabilities": capabilities, "serverInfo": INFO}}
        if method == "server/discover":
            return {"result": {**cacheable, "supportedVersions": [*HANDSHAKE, STATELESS],
                               "capabilities": {"tools": {}}, "serverInfo": INFO}}
        if method == "tools/list":
            nonlocal listed
            listed += 1
            order = tools[::-1] if "shuffled-tools" in breaks and listed % 2 == 0 else tools
            return {"result": {**cacheable, "tools": order}}
        if method == "ping":
            return {"result": base}
        if method == "tools/call":
            name = params.get("name")
            arguments = params.get("arguments") or {}
            if name not in [t["name"] for t in tools]:
                if "unknown-tool-result" in breaks:
                    return {"result": {**base, "content": [{"type": "text", "text": f"Unknown tool: {name}"}],
                                       "isError": True}}
                return error(-32050 if "reserved-code" in breaks else -32602, f"Unknown tool: {name}")
            if not isinstance(arguments.get("thought"), str):
                if "validation-as-error" in breaks:
                    return error(-32602, "Invalid arguments: thought must be a string")
                return {"result": {**base, "content": [{"type": "text", "text": "thought must be a string"}],
                                   "isError": True}}
            if breaks & {"process-history", "history-by-id"}:
                history = arguments.get("historyId") if "history-by-id" in breaks else "process"
                length = 1 if not isinstance(history, str) else histories.get(history, 0) + 1
                if isinstance(history, str):
                    histories[history] = length
                return {"result": {**base, "content": [
                    {"type": "text", "text": json.dumps({"thoughtHistoryLength": length})}]}}
            if structured is not None:
                return {"result": {**base, "content": [{"type": "text", "text": json.dumps(structured)}],
                                   "structuredContent": structured}}
            return {"result": {**base, "content": [{"type": "text", "text": "ok"}]}}
        if "garbage-stdout" in breaks:
            sys.stdout.write("debug: no such method\n")
        return error(-32601, "Method not found")

    def serve(message: Any) -> Message | None:
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            return None
        meta = (message.get("params") or {}).get("_meta") or {}
        stateless = any(str(key).startswith(PREFIX) for key in meta)
        if "log-always" in breaks:
            write({"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "data": "hi"}})
        reply = answer(message, stateless)
        return None if reply is None else {"jsonrpc": "2.0", "id": message["id"], **reply}

    def answer_chunk(messages: list[Any]) -> None:
        """Every frame of one chunk, the cancels among them applied first (as the TypeScript SDK's loop)."""
        cancelled = {(m.get("params") or {}).get("requestId") for m in messages
                     if isinstance(m, dict) and m.get("method") == "notifications/cancelled"}
        for message in messages:
            if isinstance(message, list):
                replies = [r for r in (serve(m) for m in message) if r is not None]
                if replies:
                    with WRITING:
                        sys.stdout.write(json.dumps(replies) + "\n")
                        sys.stdout.flush()
                continue
            if isinstance(message, dict) and "method" in message and message.get("id") in cancelled:
                if "cancel-error" in breaks:
                    write({"jsonrpc": "2.0", "id": message["id"],
                           "error": {"code": -32800, "message": "Request cancelled"}})
                elif "answer-cancelled" in breaks:
                    reply = serve(message)
                    if reply is not None:
                        threading.Timer(LATE, write, (reply,)).start()
                continue
            reply = serve(message)
            if reply is not None:
                write(reply)

    pending = b""
    while chunk := os.read(0, 1 << 16):
        *lines, pending = (pending + chunk).split(b"\n")
        answer_chunk([json.loads(line) for line in lines if line.strip()])
    while "ignore-eof" in breaks:
        time.sleep(1)


if __name__ == "__main__":
    main()
