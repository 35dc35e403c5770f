"""Floods stderr: a banner line and 1 MB at start, then --mb N megabytes during each tools/call before
answering it.

--forever: during tools/call, write to stderr without end and never answer.
--from-start: a thread writes stderr without end from the start; the calls are answered properly.
"""

import sys
import threading

from mini import Message, answer_call, serve

BLOCK = b"x" * 1023 + b"\n"
megabytes = int(sys.argv[sys.argv.index("--mb") + 1]) if "--mb" in sys.argv else 4


def flood(count: int) -> None:
    for _ in range(count * 1024):
        sys.stderr.buffer.write(BLOCK)
    sys.stderr.buffer.flush()


def on_call(message: Message) -> None:
    if "--forever" in sys.argv:
        while True:
            flood(1)
    flood(megabytes)
    answer_call(message)


def flood_forever() -> None:
    while True:
        flood(1)


sys.stderr.buffer.write(b"stderr_flood: starting\n")
if "--from-start" in sys.argv:
    threading.Thread(target=flood_forever, daemon=True).start()
    serve()
else:
    flood(1)
    serve(on_call)
