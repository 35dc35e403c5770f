"""Initializes properly, then answers tools/call with a stdout line that is not JSON-RPC.

--json: the line is valid JSON but not a JSON-RPC message.
"""

import sys

from mini import Message, serve


def garbage(message: Message) -> None:
    line = b'{"hello": "world"}\n' if "--json" in sys.argv else b"this is not json at all\n"
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()


serve(garbage)
