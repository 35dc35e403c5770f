"""Reads requests and never writes a byte to stdout.

--stubborn: ignores SIGTERM and stdin EOF (only SIGKILL ends it).
--child: first starts a grandchild that also ignores SIGTERM, and reports its pid on stderr.
"""

import signal
import subprocess
import sys
import time

if "--stubborn" in sys.argv:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if "--child" in sys.argv:
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)",
        ]
    )
    sys.stderr.write(f"child {child.pid}\n")
    sys.stderr.flush()
for _line in sys.stdin.buffer:
    pass
while "--stubborn" in sys.argv:
    time.sleep(1)
