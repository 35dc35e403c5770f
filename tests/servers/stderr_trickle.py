"""Trickles stderr: a thread writes it one byte per write, without pause, for as long as the process lives;
the calls are answered properly. Each write is small; together they are a flood of tiny reads."""

import os
import threading

from mini import serve


def trickle() -> None:
    while True:
        os.write(2, b".")


threading.Thread(target=trickle, daemon=True).start()
serve()
