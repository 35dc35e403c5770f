"""Initializes properly, then dies with status 7 on the first tools/call."""

import os
import sys

from mini import Message, serve


def crash(message: Message) -> None:
    sys.stderr.write("crash_on_call: segfault-ish\n")
    sys.stderr.flush()
    os._exit(7)


serve(crash)
