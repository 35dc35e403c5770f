#!/usr/bin/env python3
"""Independent raw JSON-RPC client for the round-7 atlas audit (issue 47).

Written apart from the harness so the audit does not judge the harness by itself: stdlib only,
nothing imported from conformance/. It starts `node <PKGDIR>/dist/index.js`, writes raw JSON-RPC lines
and prints every answer and the whole stderr text.

Usage: rawclient.py PKGDIR [--env K=V] [--proto P] CALLS_JSON
CALLS_JSON is a JSON list; each item is either a tools/call argument object (the tool name is
"sequentialthinking" unless the object carries "__name") or a frame {"method": ..., "params": ...}.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from typing import Any


def _pump(stream: Any, sink: queue.Queue[str] | list[str]) -> None:
    """Copy a pipe line by line into a queue or list, so reads never block the caller."""
    for raw in stream:
        line = raw.decode("utf-8", "replace")
        if isinstance(sink, list):
            sink.append(line)
        else:
            sink.put(line)


def run(
    pkgdir: str,
    frames: list[dict[str, Any]],
    env_extra: dict[str, str] | None = None,
    proto: str = "2024-11-05",
    wait: float = 1.5,
    init: bool = True,
) -> tuple[list[Any], str]:
    """Drive one fresh process through initialize and `frames`; return the answers in order and stderr."""
    env = dict(os.environ)
    env.update(env_extra or {})
    proc = subprocess.Popen(
        ["node", os.path.join(pkgdir, "dist/index.js")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out_q: queue.Queue[str] = queue.Queue()
    err: list[str] = []
    threading.Thread(target=_pump, args=(proc.stdout, out_q), daemon=True).start()
    threading.Thread(target=_pump, args=(proc.stderr, err), daemon=True).start()
    answers: list[Any] = []

    def send(obj: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(obj) + "\n").encode())
        proc.stdin.flush()

    def recv(id_: int, timeout: float = 15.0) -> Any:
        end = time.time() + timeout
        while time.time() < end:
            try:
                line = out_q.get(timeout=0.2)
            except queue.Empty:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                answers.append({"raw": line})
                continue
            if msg.get("id") == id_:
                return msg
            answers.append(msg)
        return None

    next_id = 1
    if init:
        client = {"name": "audit-raw", "version": "0"}
        params = {"protocolVersion": proto, "capabilities": {}, "clientInfo": client}
        send({"jsonrpc": "2.0", "id": next_id, "method": "initialize", "params": params})
        answers.append(recv(next_id))
        next_id += 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for frame in frames:
        next_id += 1
        if "method" in frame:
            send({"jsonrpc": "2.0", "id": next_id, **frame})
        else:
            args = dict(frame)
            name = args.pop("__name", "sequentialthinking")
            send({"jsonrpc": "2.0", "id": next_id, "method": "tools/call",
                  "params": {"name": name, "arguments": args}})
        answers.append(recv(next_id))
    time.sleep(wait)
    proc.stdin.close()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
    return answers, "".join(err)


def main(argv: list[str]) -> None:
    """Parse the command line, run once, print answers and stderr."""
    args = list(argv)
    env_extra: dict[str, str] = {}
    proto = "2024-11-05"
    while args and args[0].startswith("--"):
        if args[0] == "--env":
            key, value = args[1].split("=", 1)
            env_extra[key] = value
        elif args[0] == "--proto":
            proto = args[1]
        else:
            raise SystemExit(f"unknown option {args[0]}")
        args = args[2:]
    pkgdir, calls = args[0], json.loads(args[1])
    answers, err = run(pkgdir, calls, env_extra, proto)
    for answer in answers:
        print(json.dumps(answer, ensure_ascii=False))
    print(f"--- stderr ({len(err)} chars) ---")
    print(err)


if __name__ == "__main__":
    main(sys.argv[1:])
