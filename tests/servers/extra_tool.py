"""A thought store that lists a second tool when told: `reset` (empties the history and the branches),
`noop` (answers, changes nothing), `crash` (exits), `history` (answers the stored thoughts, changes nothing),
`note` (refuses a call without `level`, else files one more entry) or `hang` (never answers); with no
argument it lists only sequentialthinking. `pwd` answers the folder it runs in, its HOME and its TMPDIR.
What `compare` calls when one side lists a tool the other does not (conformance/compare/new_tools.py).
With `first` after it, the extra tool is listed before sequentialthinking and takes an `answer` argument:
a check reading the tool by its place, not its name, reads the wrong one. `write PATH` lists a tool that
appends a line to PATH (a side effect outside the store, as wild14's `sequentialthinking_handoff` wrote a
file); `readonly` after the tool annotates it `readOnlyHint: true`."""

from __future__ import annotations

import json
import os
import sys

from mini import TOOL, Message, reply, write

EXTRA = sys.argv[1] if len(sys.argv) > 1 else ""
FIRST = "first" in sys.argv[2:]
READ_ONLY = "readonly" in sys.argv[2:]
MARK = sys.argv[2] if EXTRA == "write" and len(sys.argv) > 2 else ""
_history: list[object] = []
_branches: dict[str, list[object]] = {}


def answer_call(message: Message) -> None:
    params = message.get("params", {})
    name, arguments = params.get("name"), params.get("arguments", {})
    if name == "sequentialthinking" and isinstance(arguments, dict):
        _history.append(arguments)
        if arguments.get("branchFromThought") and arguments.get("branchId"):
            _branches.setdefault(str(arguments["branchId"]), []).append(arguments)
        status = {"thoughtNumber": arguments.get("thoughtNumber"), "branches": list(_branches),
                  "thoughtHistoryLength": len(_history)}
        reply(message, {"content": [{"type": "text", "text": json.dumps(status)}]})
    elif name == EXTRA == "reset":
        _history.clear()
        _branches.clear()
        reply(message, {"content": [{"type": "text", "text": "reset done"}]})
    elif name == EXTRA == "noop":
        reply(message, {"content": [{"type": "text", "text": "nothing"}]})
    elif name == EXTRA == "write" and MARK:
        with open(MARK, "a", encoding="utf-8") as out:
            out.write(json.dumps(arguments) + "\n")
        reply(message, {"content": [{"type": "text", "text": "written"}]})
    elif name == EXTRA == "crash":
        sys.exit(3)
    elif name == EXTRA == "history":
        thoughts = [entry.get("thought") for entry in _history if isinstance(entry, dict)]
        reply(message, {"content": [{"type": "text", "text": json.dumps({"thoughts": thoughts})}]})
    elif name == EXTRA == "note":
        if not isinstance(arguments, dict) or not isinstance(arguments.get("level"), int):
            reply(message, {"content": [{"type": "text", "text": "Invalid level: must be an integer"}],
                            "isError": True})
        else:
            _history.append({"note": arguments["level"]})
            reply(message, {"content": [{"type": "text", "text": "noted"}]})
    elif name == EXTRA == "hang":
        return
    elif name == EXTRA == "pwd":
        where = {"cwd": os.getcwd(), "home": os.environ.get("HOME", ""), "tmp": os.environ.get("TMPDIR", ""),
                 "run_folder": os.environ.get("SEQTHINK_CONFORMANCE_RUN_FOLDER", "")}
        reply(message, {"content": [{"type": "text", "text": json.dumps(where)}]})
    else:
        reply(message, {"content": [{"type": "text", "text": f"Unknown tool: {name}"}], "isError": True})


EXTRA_TOOL = {
    "name": EXTRA,
    "description": "an extra tool",
    "inputSchema": {"type": "object", "properties": {"keep": {"type": "boolean"}, "level": {
        "type": "integer", "minimum": 2}}, "required": ["level"]},
}

FIRST_TOOL = {
    "name": EXTRA,
    "description": "an extra tool listed first",
    "inputSchema": {"type": "object", "properties": {"answer": {"type": "string"}}},
}


def serve_with_extra() -> None:
    """`serve` lists one tool; a tools/list here lists the extra one too when there is one."""
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if message.get("method") == "tools/list" and "id" in message:
            extra = [FIRST_TOOL if FIRST else EXTRA_TOOL] if EXTRA else []
            if READ_ONLY:
                extra = [{**tool, "annotations": {"readOnlyHint": True}} for tool in extra]
            reply(message, {"tools": [*extra, TOOL] if FIRST else [TOOL, *extra]})
            continue
        if message.get("method") == "initialize":
            reply(message, {"protocolVersion": message["params"]["protocolVersion"],
                            "capabilities": {"tools": {}}, "serverInfo": {"name": "extra", "version": "0"}})
        elif message.get("method") == "tools/call":
            answer_call(message)
        elif "id" in message:
            write({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})


if __name__ == "__main__":
    serve_with_extra()
