"""Forks of npm:0.6.2 that write on a timer, not per call (issue 43): a heartbeat line on stderr every period,
calls or none, as a chatty server's async logger does. The timer does not keep the process alive, so stdin's
end still ends it as the original's. Kept out of the measured catalogue (modifications.yaml) so no measured
set changes; benchmarks/flap.py builds them with the same `materialize`.

A 2.5 s heartbeat is seen by ABS-10's idle check only when a pooled process happened to sit idle that long; a
1 s one lands in the stderr of whichever witness call or banner wait its beat falls in.
"""

from __future__ import annotations

from typing import Final

from tests.modified_servers.servers import Modification, Patch

HEARTBEAT_LINE: Final = "heartbeat: alive"


def heartbeat(period_ms: int) -> Modification:
    """The original with a heartbeat line written to stderr every `period_ms` milliseconds."""
    return Modification(
        id=f"fork-heartbeat-{period_ms}",
        set="tuning",
        change=f"\"{HEARTBEAT_LINE}\" written to stderr every {period_ms} ms, calls or none",
        patches=(Patch(
            find="async function runServer() {\n",
            replace=(f"setInterval(() => {{ console.error(\"{HEARTBEAT_LINE}\"); }}, {period_ms}).unref();\n"
                     "async function runServer() {\n")),),
        primary=("ABS-10",),
    )


HEARTBEATS: Final = (heartbeat(1000), heartbeat(2500))
"""ABS-10: "between requests nothing is written ... however long the server idles"."""
