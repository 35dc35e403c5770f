"""Floods stderr: a banner line and 1 MB at start, then --mb N megabytes during each tools/call before
answering it.

--forever: during tools/call, write to stderr without end and never answer.
"""

import sys

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


sys.stderr.buffer.write(b"stderr_flood: starting\n")
flood(1)
serve(on_call)
