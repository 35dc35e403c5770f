"""The reference server, with one thing about what it sends made hostile (issue 45's cases).

usage: hostile_output.py CASE
  relays every request to a child `python -m reference_server` and its answers back, except:
  batch-garbage   a batch (a line that is a JSON array) is answered with a line that is not JSON;
  batch-deep      a batch is answered with an array nested 200,000 deep;
  deep-text       every tools/call answer's content[0].text is an array nested 100,000 deep;
  batch-chatter   after a batch, notifications without end, and no answer to anything again;
  many-tools      tools/list lists 99,999 other tools before this one (about 7.7 MB);
  lone-surrogate  a lone surrogate (U+D835, half of a mathematical letter cut at a UTF-16 unit, as JSON's
                  escape) ends every tools/call answer's text and its last branch label, and the tool's
                  description; each tools/call also writes one to stderr as raw bytes (ED A0 B5, not UTF-8).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import IO, Any

CASES = ("batch-garbage", "batch-deep", "deep-text", "batch-chatter", "many-tools", "lone-surrogate")
LONE = "\ud835"
DEEP_BATCH = 200_000
DEEP_TEXT = 100_000
TOOLS = 100_000


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def _changed(case: str, line: bytes, methods: dict[object, str]) -> bytes:
    """The child's answer `line` as this case sends it."""
    try:
        message: Any = json.loads(line)
    except ValueError:
        return line
    if not isinstance(message, dict):
        return line
    method = methods.pop(message.get("id"), None)
    result = message.get("result")
    if not isinstance(result, dict):
        return line
    if case == "deep-text" and method == "tools/call" and isinstance(result.get("content"), list):
        for block in result["content"][:1]:
            if isinstance(block, dict) and block.get("type") == "text":
                block["text"] = _deep(DEEP_TEXT)
        return json.dumps(message).encode() + b"\n"
    if case == "lone-surrogate":
        return _lone(message, method, result)
    if case == "many-tools" and method == "tools/list" and isinstance(result.get("tools"), list):
        others = [{"name": f"tool_{n:05d}", "description": "another tool",
                   "inputSchema": {"type": "object"}} for n in range(TOOLS - 1)]
        result["tools"] = others + result["tools"]
        return json.dumps(message).encode() + b"\n"
    return line


def _lone(message: dict[str, Any], method: str | None, result: dict[str, Any]) -> bytes:
    """The answer with a lone surrogate in its text, its last branch label and the tool's description."""
    if method == "tools/call" and isinstance(result.get("content"), list):
        for block in result["content"][:1]:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                try:
                    inner = json.loads(block["text"])
                except ValueError:
                    inner = None
                if isinstance(inner, dict) and isinstance(inner.get("branches"), list):
                    inner["branches"] = [*inner["branches"], "cut" + LONE]
                    block["text"] = json.dumps(inner, indent=2, ensure_ascii=False)
                block["text"] += LONE
        sys.stderr.buffer.write(b"a label cut at \xed\xa0\xb5\n")
        sys.stderr.buffer.flush()
    if method == "tools/list" and isinstance(result.get("tools"), list):
        for tool in result["tools"]:
            if isinstance(tool, dict) and isinstance(tool.get("description"), str):
                tool["description"] += "\nLimits: labels are cut at 32 units, " + LONE
    return json.dumps(message).encode() + b"\n"


def _relay(case: str, source: IO[bytes], sink: IO[bytes], methods: dict[object, str],
           lock: threading.Lock) -> None:
    for line in source:
        with lock:
            sink.write(_changed(case, line, methods))
            sink.flush()


def main() -> None:
    case = sys.argv[1]
    assert case in CASES, f"case is one of {', '.join(CASES)}"
    out = sys.stdout.buffer
    lock = threading.Lock()
    methods: dict[object, str] = {}
    child = subprocess.Popen([sys.executable, "-m", "reference_server"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    threading.Thread(target=_relay, args=(case, child.stdout, out, methods, lock), daemon=True).start()
    for line in sys.stdin.buffer:
        if line.lstrip().startswith(b"[") and case.startswith("batch-"):
            with lock:
                if case == "batch-garbage":
                    out.write(b"this is not json: <html>502 Bad Gateway</html>\n")
                elif case == "batch-deep":
                    out.write(_deep(DEEP_BATCH).encode() + b"\n")
                else:
                    chatter = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                          "params": {"level": "info", "data": "still here"}}).encode() + b"\n"
                    while True:
                        out.write(chatter * 64)
                        out.flush()
                out.flush()
            continue
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict) and "id" in message and isinstance(message.get("method"), str):
            methods[message["id"]] = message["method"]
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()
    child.wait()


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(0)
