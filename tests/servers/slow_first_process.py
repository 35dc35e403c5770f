"""The reference server, slow only on its first process: the process that finds MARK absent creates it and
answers every tool call SECONDS late; every later process (MARK present) answers at once. A machine loaded
for a moment, as the witness pass of a run meets it.

    slow_first_process.py MARK SECONDS
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from reference_server import startup


def main() -> None:
    mark, pace = Path(sys.argv[1]), float(sys.argv[2])
    server = startup.server_module()  # before anything imports mcp (reference_server/startup.py)
    from reference_server import thinking

    try:
        mark.touch(exist_ok=False)
    except FileExistsError:
        pass
    else:
        process = thinking.SequentialThinkingServer.process_thought

        def slowly(self: Any, *args: Any, **kwargs: Any) -> Any:
            time.sleep(pace)
            return process(self, *args, **kwargs)

        thinking.SequentialThinkingServer.process_thought = slowly  # type: ignore[method-assign]
    sys.exit(server.run())


if __name__ == "__main__":
    main()
