"""A pure relay of another server's stdio whose stderr reaches the pipe late, as through `docker run -i`, a
shell wrapper or an async logger: stdin and stdout pass straight through, stderr is forwarded in pieces a few
milliseconds after it was written (so a box can arrive after its call was answered, or split in two).

    late_stderr.py [--delay-ms MIN,MAX] [--seed N] [--banner-ms MS] -- COMMAND...

Default: the reference server, stderr 5 to 30 ms late. `--banner-ms`: its first piece (the start-up banner)
held until that long after the first answer was forwarded, and everything after it behind it (a wrapper
whose stderr relay starts late, an async logger's first flush). The relayed server is its own process; the
relay forwards nothing but bytes and ends when the server's stdout ends.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time

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
) -> None:
    """Forward stderr late: each piece waits its delay, and a piece is sometimes split where it is cut; the
    first piece (the banner) not before `banner` seconds after the first answer was forwarded, what follows it
    behind it."""
    if banner and (chunk := os.read(source, 1 << 16)):
        ANSWERED.wait(60.0)
        time.sleep(max(0.0, banner - (time.monotonic() - (ANSWERED_AT or [0.0])[0])))
        os.write(target, chunk)
    while chunk := os.read(source, 1 << 16):
        cut = rng.randrange(1, len(chunk) + 1)
        for piece in (chunk[:cut], chunk[cut:]):
            if piece:
                time.sleep(rng.uniform(*delays))
                os.write(target, piece)


def main() -> int:
    args = sys.argv[1:]
    delays = (0.005, 0.030)
    seed = 0
    banner = 0.0
    while args and args[0] != "--":
        flag, value, args = args[0], args[1], args[2:]
        if flag == "--delay-ms":
            low, high = (float(part) / 1000 for part in value.split(","))
            delays = (low, high)
        elif flag == "--seed":
            seed = int(value)
        elif flag == "--banner-ms":
            banner = float(value) / 1000
    command = args[1:] if args else [sys.executable, "-m", "reference_server"]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              bufsize=0)
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    late = threading.Thread(target=_late, daemon=True,
                            args=(server.stderr.fileno(), 2, delays, random.Random(seed), banner))
    late.start()
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
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
