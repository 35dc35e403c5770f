"""Exits at start; its last word on stderr comes a moment later from a child of its group that does not hold
stdout (an async logger, a wrapper's child): the handshake fails at once, and only a read that waits for
stderr's end, not a fixed second, sees the word."""

import os
import time

if os.fork() == 0:
    os.close(1)
    time.sleep(0.5)
    os.write(2, b"late_last_word: cannot start, giving up\n")
    os._exit(0)
os._exit(3)
