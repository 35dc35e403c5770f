"""Ports and forks as they are found in the wild: the original's behaviour (the reference's `processThought`,
its boxes on stderr) with one habit of a real third-party server each.

usage: ports.py MODE
  snake   takes thought_number, total_thoughts, next_thought_needed, ... (snake_case, as Python ports do):
          a call spelled as the original's is refused, like a port's own validation refuses it
  kebab   as snake, in kebab-case: thought-number, total-thoughts, next-thought-needed, ... (as some
          TypeScript ports name CLI-style fields)
  pascal  as snake, in PascalCase: Thought, ThoughtNumber, TotalThoughts, NextThoughtNeeded, ... (as C# and
          Go ports name exported fields)
  lower   as snake, in lower case: thoughtnumber, totalthoughts, ...; upper: THOUGHT, THOUGHTNUMBER, ...
  words   takes text, step, steps, more (its own words, none marked required) and refuses anything else
  nested  takes one argument, data, an object of the snake_case fields (a pydantic model argument as FastMCP
          lists it: a $ref into $defs), and refuses a call without it as FastMCP's validation does, in
          pydantic's own long words (the input repeated, a link to its errors page)
  renamed offers no sequentialthinking: process_thought takes the snake_case fields and a stage, beside
          generate_summary and clear_history (a port that renamed the tool as it restructured it)
  logger  a JSON logger on stdout (as pino writes by default) whose first line comes 200 ms after the server
          answered initialize (a logger set up with the connection, writing asynchronously)
  print   print()s each thought to stdout before answering it
  hint    exits at start as a FastMCP port does under mcp 2.x: an import error whose message says what to do
  importname exits at start as a port importing a name its installed SDK no longer has: CPython's
          "ImportError: cannot import name … from …" (a FastMCP port's `from mcp.server import FastMCP` under
          mcp 2.x)
  died    print()s its import error to stdout, not stderr, and exits 1 1.5 s later, before reading anything (a
          port whose `except ImportError` prints the message and calls sys.exit(1), then tears down the
          numpy and scikit-learn it had imported)
  pretty  with logger: its lines as pino-pretty writes them, text, not JSON ("[12:00:00.000] INFO: …":
          axefield-ts), always at 12:00 so that where the line stops being JSON does not follow the clock
  early   with any mode: a logger's line written just before the answer to tools/list
  started with any mode: a plain-text line on stdout at start, before anything is read (console.log after
          server.connect: uookong-ts), so it comes before the answer to initialize
  icons   the original's tool, and a serverInfo carrying an icons list beside name and version (as SDK 1.21
          servers may: levalicious-ts)
  named   with any mode: serverInfo keeps the original's name (levalicious-ts), its version still its own
  brief   the original's tool described in 15 lines, a FastMCP docstring's (chinng-py): no directive block
  oneline the original's tool described in one line (stopuncle-js): no assertive block either
  tracked answers `activeBranches` where the original answers `branches`, and a "---" section after the
          status object (stopuncle-js)
  unordered answers two calls that arrive together in the other order, the later first (an SDK server whose
          handlers are asynchronous: agiprolabs-ts); a call alone is answered 0.3 s later
  alias   with renamed: the original's tool and schema listed as `sequential_thinking` (xd3an-py): the
          original's name is an unknown tool's
  sessions with renamed: 35 more tools after those three, session and agent tools (create_session_1, …;
          mcp-coaia-sequential-thinking 0.3.13 offers 38, mcp-sequential-thinking 0.7.0 eleven)
  logdir  logs each call into a fixed folder outside the folders the harness gives it, `$PORTS_LOG_DIR`
          (else /tmp/ports-logdir-UID): `server.log` appended to, each answer saved as `responses/N.json`; the
          folder named on stderr at start and each saved answer after its call (vlabs-ts's /tmp/mcp-logs)
  logread names that folder's `settings.json` on stderr at start as read, and writes nothing there
Modes combine with "+": `renamed+logger` is a renamed port whose logger writes on stdout after the handshake
(axefield-ts: pino-pretty's worker thread writes a line or two after the server answered initialize);
`renamed+required` marks five of process_thought's fields required (the original's four and `stage`).
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

MODE = sys.argv[1] if len(sys.argv) > 1 else "snake"
MODES = frozenset(MODE.split("+"))
ORIGINAL = ("thought", "nextThoughtNeeded", "thoughtNumber", "totalThoughts", "isRevision", "revisesThought",
            "branchFromThought", "branchId", "needsMoreThoughts")
HINT = (
    "No module named 'mcp.server.fastmcp'. This is mcp 2.x, where FastMCP was renamed to MCPServer (from "
    "mcp.server.mcpserver import MCPServer) and other APIs changed; see the migration guide at "
    "https://py.sdk.modelcontextprotocol.io/v2/migration/#fastmcp-renamed-to-mcpserver or pin 'mcp<2' to "
    "keep running v1 code."
)
_LOCK = threading.Lock()
_HELD: list[dict[str, Any]] = []
"""`unordered`: a tools/call answer held until the next call's answer is written (or 0.3 s have passed)."""


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


SPELLERS = {"snake": snake, "kebab": lambda name: snake(name).replace("_", "-"),
            "pascal": lambda name: name[:1].upper() + name[1:], "lower": str.lower, "upper": str.upper}
"""The modes whose port takes the original's names spelled otherwise, each with its spelling."""


def write(message: dict[str, Any]) -> None:
    with _LOCK:
        sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
        sys.stdout.buffer.flush()


def _release(message: dict[str, Any]) -> None:
    with _LOCK:
        if message not in _HELD:
            return
        _HELD.remove(message)
    write(message)


def write_call_answer(message: dict[str, Any]) -> None:
    """A tools/call's answer: written now, or in `unordered` mode after the next one."""
    if "unordered" not in MODES:
        write(message)
        return
    with _LOCK:
        held = _HELD.pop() if _HELD else None
        if held is None:
            _HELD.append(message)
    if held is None:
        threading.Timer(0.3, _release, (message,)).start()
        return
    write(message)
    write(held)


def log_line(msg: str) -> None:
    """One line as pino writes it: JSON, but not JSON-RPC."""
    line = {"level": 30, "time": int(time.time() * 1000), "pid": os.getpid(), "hostname": "port", "msg": msg}
    said = json.dumps(line).encode()
    if "pretty" in MODES:
        said = f"[12:00:00.000] \x1b[32mINFO\x1b[39m: \x1b[36m{msg}\x1b[39m".encode()
    with _LOCK:
        sys.stdout.buffer.write(said + b"\n")
        sys.stdout.buffer.flush()


def main() -> None:
    if MODE == "importname":
        sys.stderr.write("Traceback (most recent call last):\n  File \"server.py\", line 5, in <module>\n"
                         "    from toolkit.server import Toolkit\n"
                         "ImportError: cannot import name 'Toolkit' from 'toolkit.server' "
                         "(/venv/lib/python3.11/site-packages/toolkit/server/__init__.py)\n")
        sys.exit(1)
    if MODE == "died":
        sys.stdout.write("ERROR: could not load the server framework: No module named 'toolkit_mcp'\n")
        sys.stdout.flush()
        time.sleep(1.5)
        sys.exit(1)
    if MODE == "hint":
        sys.stderr.write("Traceback (most recent call last):\n  File \"server.py\", line 3, in <module>\n"
                         "    from mcp.server.fastmcp import FastMCP\n"
                         f"ModuleNotFoundError: {HINT}\n")
        sys.exit(1)
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
    from reference_server.colour import detect_prefixes
    from reference_server.thinking import SequentialThinkingServer
    from reference_server.toolspec import load_tool_spec

    spec = load_tool_spec()
    schema: dict[str, Any] = json.loads(json.dumps(spec.input_schema))
    spelled = SPELLERS.get(MODE)
    if spelled is not None:
        schema["properties"] = {spelled(k): v for k, v in schema["properties"].items()}
        schema["required"] = [spelled(k) for k in schema.get("required", [])]
    words = {"text": "thought", "step": "thoughtNumber", "steps": "totalThoughts",
             "more": "nextThoughtNeeded"}
    if MODE == "nested":
        inner = {"type": "object", "title": "ThoughtData", "required": [snake(k) for k in schema["required"]],
                 "properties": {snake(k): v for k, v in schema["properties"].items()}}
        schema = {"$defs": {"ThoughtData": inner}, "properties": {"data": {"$ref": "#/$defs/ThoughtData"}},
                  "required": ["data"], "title": f"{spec.name}Arguments", "type": "object"}
    if MODE == "words":
        schema = {"type": "object", "properties": {"text": {"type": "string"}, "step": {"type": "integer"},
                                                   "steps": {"type": "integer"}, "more": {"type": "boolean"}}}
    description = spec.description
    if "brief" in MODES:
        description = "\n".join(["Sequential thinking tool for step-by-step reasoning.", "", "Args:",
                                  *(f"    {name}: the original's {name}" for name in ORIGINAL),
                                  "", "Returns:", "    Confirmation message with thought details"])
    if "oneline" in MODES:
        description = ("Enhanced sequential thinking tool with branching capabilities. All the original "
                       "functionality PLUS branches.")
    tool = {"name": spec.name, "description": description, "inputSchema": schema}
    tools = [tool]
    if "renamed" in MODES:
        properties = {snake(k): v for k, v in schema["properties"].items()}
        properties["stage"] = {"type": "string"}
        process: dict[str, Any] = {"type": "object", "properties": properties}
        if "required" in MODES:  # as axefield-ts lists it: the original's four and its own `stage`
            process["required"] = ["thought", "thought_number", "total_thoughts", "next_thought_needed",
                                   "stage"]
        tools = [{"name": "process_thought", "description": "Record a thought.", "inputSchema": process},
                 {"name": "generate_summary", "inputSchema": {"type": "object", "properties": {}}},
                 {"name": "clear_history", "inputSchema": {"type": "object", "properties": {}}}]
        if "alias" in MODES:
            tools = [{**tool, "name": "sequential_thinking"}]
        if "sessions" in MODES:
            tools += [{"name": f"{verb}_session_{i}", "inputSchema": {"type": "object", "properties": {}}}
                      for i, verb in enumerate(["create", "read", "list", "finalize", "delete"] * 7)]

    def stderr(data: bytes) -> None:
        sys.stderr.buffer.write(data)
        sys.stderr.buffer.flush()

    thinking = SequentialThinkingServer(detect_prefixes(), stderr)
    logdir = Path(os.environ.get("PORTS_LOG_DIR") or f"/tmp/ports-logdir-{os.getuid()}")
    if "logdir" in MODES:
        (logdir / "responses").mkdir(parents=True, exist_ok=True)
        sys.stderr.write(f"[DEBUG] logs folder: {logdir}\n")
    if "logread" in MODES:
        sys.stderr.write(f"[DEBUG] settings read from {logdir / 'settings.json'}\n")
    sys.stderr.write("Sequential Thinking MCP Server running on stdio\n")
    sys.stderr.flush()
    if "started" in MODES:
        sys.stdout.write("Sequential Thinking MCP Server started\n")
        sys.stdout.flush()

    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message:
            continue
        method, ident = message.get("method"), message["id"]
        if method == "initialize" and "logger" in MODES:
            threading.Timer(0.2, log_line, ("client connected",)).start()
        if method == "initialize":
            result: dict[str, Any] = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                                      "serverInfo": {"name": "sequential-thinking-server" if "named" in MODES
                                                     else f"port-{MODE}", "version": "0.1.0"}}
            if "icons" in MODES:
                result["serverInfo"]["icons"] = [{"src": "data:image/svg+xml;base64,PHN2Zz4=",
                                                  "mimeType": "image/svg+xml", "sizes": ["any"]}]
        elif method == "tools/list":
            result = {"tools": tools}
            if "early" in MODES:  # a line logged while listing, before the answer (axefield-ts, some starts)
                log_line("listing tools")
        elif method == "tools/call":
            params = message.get("params") or {}
            arguments = params.get("arguments")
            if "renamed" in MODES and params.get("name") not in [tool["name"] for tool in tools]:
                # FastMCP dispatches on the names it lists: the original's is an unknown tool's.
                unknown = {"type": "text", "text": f"Unknown tool: {params.get('name')}"}
                write({"jsonrpc": "2.0", "id": ident, "result": {"content": [unknown], "isError": True}})
                continue
            if spelled is not None and isinstance(arguments, dict):
                # The port reads only its own names: the original's spelling is not one of them.
                by_spelling = {spelled(k): k for k in ORIGINAL}
                arguments = {by_spelling.get(k, "_" + k if k in ORIGINAL else k): v
                             for k, v in arguments.items()}
            if MODE == "nested" and isinstance(arguments, dict):
                if not isinstance(arguments.get("data"), dict):
                    text = (f"Error executing tool {spec.name}: 1 validation error for {spec.name}Arguments\n"
                            "data\n  Field required [type=missing, input_value={'thought': 'conformance "
                            "...xtThoughtNeeded': False}, input_type=dict]\n    For further information "
                            "visit https://errors.pydantic.dev/2.9/v/missing")
                    write({"jsonrpc": "2.0", "id": ident,
                           "result": {"content": [{"type": "text", "text": text}], "isError": True}})
                    continue
                by_snake = {snake(k): k for k in ORIGINAL}
                arguments = {by_snake.get(k, k): v for k, v in arguments["data"].items()}
            if MODE == "words" and isinstance(arguments, dict):
                if set(arguments) - set(words):
                    unknown = ", ".join(sorted(set(arguments) - set(words)))
                    refused = {"code": -32602, "message": f"unexpected arguments: {unknown}"}
                    write({"jsonrpc": "2.0", "id": ident, "error": refused})
                    continue
                arguments = {words[k]: v for k, v in arguments.items()}
            if MODE == "print" and isinstance(arguments, dict):
                print(f"Thought {arguments.get('thoughtNumber')}: {arguments.get('thought')}", flush=True)
            text, is_error = thinking.process_thought(arguments)
            if "tracked" in MODES and not is_error:
                status = json.loads(text)
                status["activeBranches"] = status.pop("branches", [])
                text = json.dumps(status, indent=2) + "\n\n---\nNext: keep thinking on track main"
            if spelled is not None and is_error:
                for name in ORIGINAL:
                    text = re.sub(rf"\b{name}\b", spelled(name), text)
            result = {"content": [{"type": "text", "text": text}]}
            if is_error:
                result["isError"] = True
            if "logdir" in MODES:
                saved = logdir / "responses" / f"{os.getpid()}-{ident}.json"
                saved.write_text(json.dumps(result))
                with open(logdir / "server.log", "a", encoding="utf-8") as log:
                    log.write(f"call {ident}\n")
                sys.stderr.write(f"[DEBUG] answer saved to {saved}\n")
                sys.stderr.flush()
            write_call_answer({"jsonrpc": "2.0", "id": ident, "result": result})
            continue
        else:
            write({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}})
            continue
        write({"jsonrpc": "2.0", "id": ident, "result": result})


if __name__ == "__main__":
    main()
