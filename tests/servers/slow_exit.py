"""The reference server, ending late: every end it comes to itself (stdin closed, its stdout broken) and each
terminating signal (SIGTERM, SIGHUP, SIGINT, SIGUSR2) come SECONDS later, with the original's status (0, 1,
ended by the signal); SECONDS past any wait is a server that never ends. Slow, and conforming:
RTE-10's checks must wait for the exit, not call the process deviating. CALL_SECONDS: each tool call is
answered that much later too (a process whose own pace is slow).

    slow_exit.py SECONDS [CALL_SECONDS]
"""

from __future__ import annotations

import os
import signal
import sys
import time
from types import FrameType
from typing import Any

from reference_server import startup


def main() -> None:
    delay = float(sys.argv[1])
    server = startup.server_module()  # before anything imports mcp (reference_server/startup.py)
    from reference_server import thinking

    def late_term(signum: int, frame: FrameType | None) -> None:
        time.sleep(delay)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for trapped in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGUSR2):
        signal.signal(trapped, late_term)
    if len(sys.argv) > 2:
        pace, process = float(sys.argv[2]), thinking.SequentialThinkingServer.process_thought

        def slowly(self: Any, *args: Any, **kwargs: Any) -> Any:
            time.sleep(pace)
            return process(self, *args, **kwargs)

        thinking.SequentialThinkingServer.process_thought = slowly  # type: ignore[method-assign]
    try:
        status = server.run()
    finally:
        time.sleep(delay)
    sys.exit(status)


if __name__ == "__main__":
    main()
