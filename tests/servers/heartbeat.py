"""The reference server with a heartbeat: a thread writes "heartbeat: alive" on stderr every PERIOD
milliseconds (default 5) for as long as the process lives, calls or none, as a chatty direct server's async
logger does. Its refusals write nothing else, so what stderr holds after a refusal's answer is no call's own.

    heartbeat.py [PERIOD_MS]
"""

from __future__ import annotations

import os
import sys
import threading
import time

from reference_server import startup


def _beat(period: float) -> None:
    while True:
        time.sleep(period)
        os.write(2, b"heartbeat: alive\n")


def main() -> int:
    period = float(sys.argv[1]) / 1000 if len(sys.argv) > 1 else 0.005
    threading.Thread(target=_beat, args=(period,), daemon=True).start()
    server = startup.server_module()
    status: int = server.run()
    return status


if __name__ == "__main__":
    sys.exit(main())
