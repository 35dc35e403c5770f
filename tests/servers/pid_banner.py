"""The reference server announcing itself first with a JSON log line that carries its process id, as a pino or
bunyan logger writes one (held-out-multi-14's fork-background-worker: `{"level":"info","msg":...,"pid":19192}`
for its banner): every process says another pid, and nothing else about it changes.

    pid_banner.py
"""

from __future__ import annotations

import json
import os
import sys

from reference_server import startup


def main() -> int:
    line = json.dumps({"level": "info", "msg": "starting", "pid": os.getpid()}, separators=(",", ":"))
    os.write(2, f"{line}\n".encode())
    status: int = startup.server_module().run()
    return status


if __name__ == "__main__":
    sys.exit(main())
