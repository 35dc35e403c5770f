"""Reads requests and never writes a byte to stdout.

--stubborn: ignores SIGTERM and stdin EOF (only SIGKILL ends it).
--child: first starts a grandchild that also ignores SIGTERM, and reports its pid on stderr.
--offline: first tries to fetch a file over a network it cannot reach, retrying and logging each failure on
stderr as huggingface_hub does for a model a server loads at start (enhanced-mcp-memory 2.6.1's
all-MiniLM-L6-v2): it never gets to answer within any call timeout.
--chatty: first writes 40 numbered retry lines of 90 bytes to stderr (3.6 KB, past the 2,000 bytes
of stderr a stop quotes from), none an error line.
"""

import json
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
if "--offline" in sys.argv:
    fetch = ("'[Errno -2] Name or service not known' thrown while requesting HEAD "
             "https://models.invalid/all-MiniLM-L6-v2/resolve/main/modules.json")
    for attempt in range(1, 6):
        logged = {"level": "WARNING", "logger": "huggingface_hub.utils._http", "message": fetch}
        sys.stderr.write(json.dumps(logged) + f"\nRetrying in {2 ** attempt}s [Retry {attempt}/5].\n")
        sys.stderr.flush()
        time.sleep(0.2)
if "--chatty" in sys.argv:
    for attempt in range(1, 41):
        sys.stderr.write(f"retry-{attempt:02d}:waiting-for-models.invalid/all-MiniLM-L6-v2/resolve/main/"
                         "modules.json;next-in-1s\n")
    sys.stderr.flush()
for _line in sys.stdin.buffer:
    pass
while "--stubborn" in sys.argv:
    time.sleep(1)
