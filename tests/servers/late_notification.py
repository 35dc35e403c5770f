"""A server that sends `notifications/tools/list_changed` from a timer started by the client's
`notifications/initialized`, as the node fork initialized-sends-list-changed does from `setImmediate`: the
notification reaches stdout after the handshake's last frame, unasked, so the pool never takes the process
back. DELAY_MS (default 0, the next tick) delays it further. `--heartbeat MS`: a thread also writes
"heartbeat: alive" on stderr every MS milliseconds, a timer beside it. `--pids FILE`: each process appends its
pid to FILE, so a test counts the processes a caller started.

    late_notification.py [DELAY_MS] [--heartbeat MS] [--pids FILE]
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

from mini import BANNER, TOOL, Message

_LOCK = threading.Lock()


def _write(message: Message) -> None:
    with _LOCK:
        sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
        sys.stdout.buffer.flush()


def _beat(period: float) -> None:
    while True:
        time.sleep(period)
        os.write(2, b"heartbeat: alive\n")


def _answer(message: Message) -> None:
    method = message.get("method")
    if method == "initialize":
        result: Message = {"protocolVersion": message["params"]["protocolVersion"],
                           "capabilities": {"tools": {}},
                           "serverInfo": {"name": "late-notification", "version": "0"}}
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "ok"}]}
    else:
        error = {"code": -32601, "message": "Method not found"}
        _write({"jsonrpc": "2.0", "id": message["id"], "error": error})
        return
    _write({"jsonrpc": "2.0", "id": message["id"], "result": result})


def main() -> None:
    args = sys.argv[1:]
    delay = float(args[0]) / 1000 if args and not args[0].startswith("--") else 0.0
    if "--pids" in args:
        with open(args[args.index("--pids") + 1], "a", encoding="utf-8") as pids:
            pids.write(f"{os.getpid()}\n")
    if "--heartbeat" in args:
        period = float(args[args.index("--heartbeat") + 1]) / 1000
        threading.Thread(target=_beat, args=(period,), daemon=True).start()
    os.write(2, BANNER)
    changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if message.get("method") == "notifications/initialized":
            threading.Timer(delay, _write, args=(changed,)).start()
        elif "id" in message:
            _answer(message)


if __name__ == "__main__":
    main()
