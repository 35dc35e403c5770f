"""Trickles stderr: a thread writes it one byte per write, without pause, for as long as the process lives;
the calls are answered properly. Each write is small; together they are a flood of tiny reads.

--heartbeat: instead, a 17-byte line every 20 ms (a chatty server's heartbeat), never a pause longer.
"""

import os
import sys
import threading
import time

from mini import serve


def trickle() -> None:
    while True:
        os.write(2, b".")


def heartbeat() -> None:
    while True:
        os.write(2, b"heartbeat: alive\n")
        time.sleep(0.02)


threading.Thread(target=heartbeat if "--heartbeat" in sys.argv else trickle, daemon=True).start()
serve()
