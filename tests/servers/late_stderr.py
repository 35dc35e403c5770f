"""A pure relay of another server's stdio whose stderr reaches the pipe late, as through `docker run -i`, a
shell wrapper or an async logger: stdin and stdout pass straight through, stderr is forwarded in pieces a few
milliseconds after it was written (so a box can arrive after its call was answered, or split in two).

    late_stderr.py [--delay-ms MIN,MAX] [--seed N] [--banner-ms MS] [--piece-bytes N] -- COMMAND...

Default: the reference server, stderr 5 to 30 ms late. `--banner-ms`: its first piece (the start-up banner)
held until that long after the first answer was forwarded, and everything after it behind it (a wrapper
whose stderr relay starts late, an async logger's first flush). `--piece-bytes`: no piece longer than N
bytes, each after its delay, and what the server wrote held meanwhile (a slow relay that never slows the
server: its answers come on time, its boxes late). The relayed server is its own process; the relay forwards
bytes and the terminating signals (SIGHUP, SIGINT, SIGTERM, SIGUSR2) and ends as the server ended, once its
stdout ends.
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

ANSWERED = threading.Event()
"""Set once the first stdout bytes (initialize's answer) were forwarded: a held-back banner waits for it."""
ANSWERED_AT: list[float] = []

def _pump(source: int, target: int, answers: bool = False) -> None:
    """Copy bytes as they come until `source` ends or `target` is closed (the first `answers`: `ANSWERED`)."""
    while chunk := os.read(source, 1 << 16):
        view = memoryview(chunk)
        while view:
            view = view[os.write(target, view):]
        if answers and not ANSWERED.is_set():
            ANSWERED_AT.append(time.monotonic())
            ANSWERED.set()


def _late(
    source: int, target: int, delays: tuple[float, float], rng: random.Random, banner: float = 0.0,
    piece_bytes: int = 0,
) -> None:
    """Forward stderr late: each piece waits its delay, and a piece is sometimes split where it is cut; the
    first piece (the banner) not before `banner` seconds after the first answer was forwarded, what follows it
    behind it."""
    if banner and (chunk := os.read(source, 1 << 16)):
        ANSWERED.wait(60.0)
        time.sleep(max(0.0, banner - (time.monotonic() - (ANSWERED_AT or [0.0])[0])))
        os.write(target, chunk)
    for chunk in _held(source) if piece_bytes else iter(lambda: os.read(source, 1 << 16), b""):
        cut = rng.randrange(1, len(chunk) + 1)
        for piece in _pieces((chunk[:cut], chunk[cut:]), piece_bytes):
            if piece:
                time.sleep(rng.uniform(*delays))
                os.write(target, piece)


def _held(source: int) -> Iterator[bytes]:
    """What `source` says, read as it comes and held until forwarded (all that is held at once, 16 MiB at
    most): the server never waits on the relay."""
    pending: queue.Queue[bytes] = queue.Queue()

    def drain() -> None:
        while chunk := os.read(source, 1 << 16):
            pending.put(chunk)
        pending.put(b"")

    threading.Thread(target=drain, daemon=True).start()
    ended = False
    while not ended:
        parts = [pending.get()]
        ended = not parts[0]
        with contextlib.suppress(queue.Empty):
            while not ended and len(parts) < 256:
                parts.append(pending.get_nowait())
                ended = not parts[-1]
        if chunk := b"".join(parts):
            yield chunk


def _pieces(parts: tuple[bytes, bytes], longest: int) -> list[bytes]:
    """The parts, each cut into pieces of at most `longest` bytes (0: whole)."""
    if not longest:
        return list(parts)
    return [part[at:at + longest] for part in parts for at in range(0, len(part), longest)]


def main() -> int:
    args = sys.argv[1:]
    delays = (0.005, 0.030)
    seed = 0
    banner = 0.0
    piece_bytes = 0
    while args and args[0] != "--":
        flag, value, args = args[0], args[1], args[2:]
        if flag == "--delay-ms":
            low, high = (float(part) / 1000 for part in value.split(","))
            delays = (low, high)
        elif flag == "--seed":
            seed = int(value)
        elif flag == "--banner-ms":
            banner = float(value) / 1000
        elif flag == "--piece-bytes":
            piece_bytes = int(value)
    command = args[1:] if args else [sys.executable, "-m", "reference_server"]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              bufsize=0)
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    late = threading.Thread(target=_late, daemon=True,
                            args=(server.stderr.fileno(), 2, delays, random.Random(seed), banner,
                                  piece_bytes))
    late.start()
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGUSR2):
        signal.signal(sig, lambda signum, frame: server.send_signal(signum))
    inbound = threading.Thread(target=_forward_stdin, args=(server,), daemon=True)
    inbound.start()
    try:
        _pump(server.stdout.fileno(), 1, answers=True)
    except OSError:
        server.stdout.close()  # our stdout was closed: the server finds its own closed too
    status = server.wait()
    late.join(1.0)
    if status < 0:  # ended by a signal: so is the relay, as the server it stands for
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    return status


def _forward_stdin(server: subprocess.Popen[bytes]) -> None:
    assert server.stdin is not None
    with contextlib.suppress(OSError):
        _pump(0, server.stdin.fileno())
    server.stdin.close()


if __name__ == "__main__":
    sys.exit(main())
