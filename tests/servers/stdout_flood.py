"""Floods stdout in answer to tools/call (the handshake is proper); MODE is one of:

  no-newline MB   MB mebibytes without a newline (`forever`: without end), then silence
  line MB         the answer as one frame of MB mebibytes (a text that long) and its newline
  frames          notifications without end, each a proper frame, and never the answer
"""

import json
import sys
import time

from mini import Message, serve

MODE = sys.argv[1]
SIZE = sys.argv[2] if len(sys.argv) > 2 else "0"
OUT = sys.stdout.buffer
BLOCK = b"x" * (1 << 20)


def on_call(message: Message) -> None:
    if MODE == "no-newline":
        sent = 0
        while SIZE == "forever" or sent < int(SIZE):
            OUT.write(BLOCK)
            OUT.flush()
            sent += 1
        time.sleep(3600)
    elif MODE == "line":
        text = "x" * (int(SIZE) << 20)
        result = {"content": [{"type": "text", "text": text}]}
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        OUT.write(json.dumps(answer).encode() + b"\n")
        OUT.flush()
    elif MODE == "frames":
        params = {"level": "info", "data": "x" * 1000}
        notification = {"jsonrpc": "2.0", "method": "notifications/message", "params": params}
        frame = json.dumps(notification).encode() + b"\n"
        while True:
            OUT.write(frame * 64)
            OUT.flush()


serve(on_call)
