"""The reference server until it has answered N tool calls, then silent until its stdin closes.

usage: stalls.py N [MARK]
  relays every request to a child `python -m reference_server` and its answers back; from the (N+1)-th
  `tools/call` on it reads requests and answers none, so a run against it cannot finish: a deadline or a
  signal tested against it always falls mid-run, however fast the machine. MARK, when given, is a file
  created (with the pid) at the moment it stalls, so a test can wait for the run to be stuck.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO


def _relay(source: IO[bytes], sink: IO[bytes]) -> None:
    for line in source:
        sink.write(line)
        sink.flush()


def main() -> None:
    allowed = int(sys.argv[1])
    mark = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    child = subprocess.Popen([sys.executable, "-m", "reference_server"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    threading.Thread(target=_relay, args=(child.stdout, sys.stdout.buffer), daemon=True).start()
    calls = 0
    stalled = False
    for line in sys.stdin.buffer:
        if not stalled:
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            if isinstance(message, dict) and message.get("method") == "tools/call":
                calls += 1
                stalled = calls > allowed
                if stalled and mark is not None:
                    mark.write_text(str(os.getpid()), encoding="utf-8")
        if not stalled:
            child.stdin.write(line)
            child.stdin.flush()
    child.stdin.close()
    child.wait()


if __name__ == "__main__":
    main()
