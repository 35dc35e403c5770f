"""A stateless 2026-07-28 server: no initialize, `server/discover`, the version checked in every request's
`_meta`; each result echoes the `_meta` it was sent, so a test sees what the client stamped."""

from __future__ import annotations

import json
import sys

from mini import TOOL, Message, reply, write

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
SUPPORTED = ["2026-07-28"]


def refuse(message: Message, code: int, text: str, data: object = None) -> None:
    error: Message = {"code": code, "message": text}
    if data is not None:
        error["data"] = data
    write({"jsonrpc": "2.0", "id": message["id"], "error": error})


def serve() -> None:
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if not isinstance(message, dict) or "id" not in message:
            continue
        params = message.get("params") or {}
        meta = params.get("_meta") or {}
        version = meta.get(VERSION_KEY)
        if version not in SUPPORTED:
            data = {"supported": SUPPORTED, "requested": version}
            refuse(message, -32022, "Unsupported protocol version", data)
            continue
        method = message.get("method")
        base = {"resultType": "complete", "_meta": meta}
        cacheable = {**base, "ttlMs": 0, "cacheScope": "private"}
        if method == "server/discover":
            reply(message, {**cacheable, "supportedVersions": SUPPORTED, "capabilities": {"tools": {}}})
        elif method == "tools/list":
            reply(message, {**cacheable, "tools": [TOOL]})
        elif method == "tools/call":
            reply(message, {**base, "content": [{"type": "text", "text": "ok"}]})
        elif method == "ping":
            reply(message, base)
        else:
            refuse(message, -32601, "Method not found")


if __name__ == "__main__":
    serve()
