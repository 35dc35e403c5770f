"""A raw process's stderr read (`RawServer.stderr_now`: the suite's lifecycle checks, the pool's idle
watch) is bounded in time and bytes whatever the server does: a heartbeat that never pauses 50 ms, a flood
without end, a line forwarded in pieces (issue 45)."""

from __future__ import annotations

import shlex
import sys
import threading
import time
import tracemalloc

from conformance.suite.rawproc import (
    SEEN_BYTES,
    STDERR_QUIET,
    STDERR_READ_BYTES,
    STDERR_READ_LIMIT,
    RawServer,
)
from conformance.targets.specs import Target, resolve_target
from tests.servers import OVERRUN, assert_gone, command

MiB = 1 << 20


def _target(*argv: str) -> Target:
    return resolve_target("cmd:" + " ".join(argv))


def _timed_read(raw: RawServer, wait: float) -> tuple[bytes, float]:
    """One read and its seconds, failing (not hanging) when it does not end within `wait` and twice its limit:
    the read runs on a thread, the test waits on an event with a deadline."""
    done = threading.Event()
    outcome: list[tuple[bytes, float]] = []

    def read() -> None:
        started = time.monotonic()
        said = raw.stderr_now(wait=wait)
        outcome.append((said, time.monotonic() - started))
        done.set()

    threading.Thread(target=read, daemon=True).start()
    assert done.wait(wait + 2 * STDERR_READ_LIMIT + 2 * OVERRUN), "the stderr read never ended"
    return outcome[0]


def test_a_stderr_heartbeat_ends_a_read_at_its_time_limit() -> None:
    """17 bytes every 20 ms never leave 50 ms of quiet: the old read lasted as long as the server lived."""
    with RawServer(_target(*command("stderr_trickle", "--heartbeat")), sandbox={}) as raw:
        pid = raw.proc.pid
        # The first read waits for the server's start (seconds on a loaded machine), so up to `OVERRUN`:
        # it ends at the first bytes, and its time limit counts from them.
        said, seconds = _timed_read(raw, OVERRUN)
        assert said.startswith(b"heartbeat: alive\n") and said.endswith(b"\n")
        assert seconds < OVERRUN + STDERR_READ_LIMIT + OVERRUN, seconds
        again, seconds = _timed_read(raw, 1.0)
        assert again and seconds < 1.0 + STDERR_READ_LIMIT + OVERRUN, seconds
    assert_gone(pid)


def test_a_stderr_flood_is_read_in_capped_pieces_with_flat_memory() -> None:
    """A flood from the start: each read keeps at most STDERR_READ_BYTES, `seen` its first SEEN_BYTES."""
    tracemalloc.start()
    try:
        with RawServer(_target(*command("stderr_flood", "--from-start")), sandbox={}) as raw:
            pid = raw.proc.pid
            sizes = []
            started = time.monotonic()
            for _ in range(8):  # the first waits for the server's start: up to `OVERRUN`, ended by its bytes
                said, _seconds = _timed_read(raw, OVERRUN)
                sizes.append(len(said))
            seconds = time.monotonic() - started
            seen = len(raw.seen)
            assert raw.request("tools/list", {})["result"], "a server flooding stderr is still answered"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert all(0 < size <= STDERR_READ_BYTES for size in sizes), sizes
    assert seen == SEEN_BYTES
    assert seconds < 8 * (STDERR_READ_LIMIT + 1.0) + OVERRUN, seconds
    assert peak < 16 * MiB, f"{peak / MiB:.0f} MiB held reading a stderr flood"
    assert_gone(pid)


def test_a_line_forwarded_in_pieces_is_read_whole() -> None:
    """A relay forwards a line in pieces further apart than the quiet period: the read waits for its end."""
    gap = STDERR_QUIET * 3
    script = (
        "import sys, time\n"
        f"sys.stderr.write('banner: start'); sys.stderr.flush(); time.sleep({gap!r})\n"
        "sys.stderr.write('ing up\\n'); sys.stderr.flush(); sys.stdin.read()\n"
    )
    with RawServer(_target(sys.executable, "-c", shlex.quote(script)), sandbox={}) as raw:
        said = raw.stderr_now(wait=OVERRUN)
    assert said == b"banner: starting up\n"
