"""The reference server with a heartbeat: a thread writes "heartbeat: alive" on stderr every PERIOD
milliseconds (default 5) for as long as the process lives, calls or none, as a chatty direct server's async
logger does. Its refusals write nothing else, so what stderr holds after a refusal's answer is no call's own.
`--stamped`: each line starts with the time of day, `[12:03:04.512] heartbeat: alive`, as a logger stamps it.
`--ascii-box`: every box is drawn in ASCII (`+---+`, `|`) as well: a per-call stderr change beside the timer.
`--process-tag`: every box ends with a line naming the process by random letters, a per-call stderr that
differs between two processes (LOOP-B departs on it, heartbeat or none).

    heartbeat.py [PERIOD_MS] [--stamped] [--ascii-box] [--process-tag]
"""

from __future__ import annotations

import datetime
import os
import random
import string
import sys
import threading
import time

from reference_server import startup


def _beat(period: float, stamped: bool) -> None:
    while True:
        time.sleep(period)
        stamp = f"[{datetime.datetime.now().time().isoformat(timespec='milliseconds')}] " if stamped else ""
        os.write(2, f"{stamp}heartbeat: alive\n".encode())


def main() -> int:
    numbers = [a for a in sys.argv[1:] if not a.startswith("--")]
    period = float(numbers[0]) / 1000 if numbers else 0.005
    threading.Thread(target=_beat, args=(period, "--stamped" in sys.argv), daemon=True).start()
    server = startup.server_module()
    if "--ascii-box" in sys.argv:
        from reference_server import thinking

        formatted = thinking.SequentialThinkingServer.format_thought
        frame = str.maketrans("┌┐└┘├┤─│", "++++++-|")

        def ascii_box(self: thinking.SequentialThinkingServer, data: thinking.ThoughtData) -> str:
            return formatted(self, data).translate(frame)

        thinking.SequentialThinkingServer.format_thought = ascii_box  # type: ignore[method-assign]
    if "--process-tag" in sys.argv:
        from reference_server import thinking

        plain = thinking.SequentialThinkingServer.format_thought
        tag = "".join(random.choice(string.ascii_lowercase) for _ in range(12))

        def tagged(self: thinking.SequentialThinkingServer, data: thinking.ThoughtData) -> str:
            return f"{plain(self, data)}\nprocess {tag}"

        thinking.SequentialThinkingServer.format_thought = tagged  # type: ignore[method-assign]
    status: int = server.run()
    return status


if __name__ == "__main__":
    sys.exit(main())
