"""The reference server with an idle timeout: once it has answered a call, it ends itself (status 0) when no
call came for PERIOD milliseconds (default 2000), writing nothing, as a fork freeing an unused session does.
Before its first call it waits however long (a slow start is not idleness).

    idle_exit.py [PERIOD_MS]
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any

from reference_server import startup


def main() -> int:
    period = float(sys.argv[1]) / 1000 if len(sys.argv) > 1 else 2.0
    last = [float("inf")]

    def watch() -> None:
        while time.monotonic() - last[0] <= period:
            time.sleep(0.05)
        os._exit(0)

    server = startup.server_module()
    from reference_server import thinking

    processed = thinking.SequentialThinkingServer.process_thought

    def touched(self: thinking.SequentialThinkingServer,
                arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        last[0] = time.monotonic()
        return processed(self, arguments)

    thinking.SequentialThinkingServer.process_thought = touched  # type: ignore[method-assign]
    threading.Thread(target=watch, daemon=True).start()
    status: int = server.run()
    return status


if __name__ == "__main__":
    sys.exit(main())
