"""A command a test waits for, ended only once it stops making progress, not at a fixed deadline.

A fixed 300 s failed a `conformance run` still printing its progress on a loaded machine (issue 43's stress
runs: tests/e2e/test_fork_maintainer.py's red run, at "records checked 37/104" after 300 s, load 13-39).
Every byte the command writes is progress: `stall` seconds without one, or `limit` in all, end its process
group and raise `subprocess.TimeoutExpired`, as `subprocess.run(timeout=...)` did. Its output reads as
`subprocess.run(text=True)` gives it (UTF-8, universal newlines), so a test moved here asserts what it did.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Final

STALL: Final = 300.0
"""Seconds without a byte of output after which a command is taken to be stuck (the old whole deadline)."""
LIMIT: Final = 3600.0
"""Seconds a command gets in all, however steadily it writes."""


def run_paced(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None,
              stall: float = STALL, limit: float = LIMIT) -> subprocess.CompletedProcess[str]:
    """`argv` run to its end with its output captured (UTF-8), while it keeps writing."""
    proc = subprocess.Popen(list(argv), cwd=cwd, env=None if env is None else dict(env),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    began = last = time.monotonic()
    chunks: dict[str, list[bytes]] = {"out": [], "err": []}
    lock = threading.Lock()

    def drain(stream: IO[bytes], into: list[bytes]) -> None:
        nonlocal last
        while chunk := stream.read1(65536):  # type: ignore[attr-defined]
            with lock:
                into.append(chunk)
                last = time.monotonic()

    assert proc.stdout is not None and proc.stderr is not None
    readers = [threading.Thread(target=drain, args=(proc.stdout, chunks["out"]), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, chunks["err"]), daemon=True)]
    for reader in readers:
        reader.start()
    while proc.poll() is None:
        with lock:
            quiet = time.monotonic() - last
        if quiet > stall or time.monotonic() - began > limit:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            for reader in readers:
                reader.join(5)
            raise subprocess.TimeoutExpired(list(argv), round(time.monotonic() - began, 1),
                                            output=b"".join(chunks["out"]), stderr=b"".join(chunks["err"]))
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(min(1.0, stall / 4))
    for reader in readers:
        reader.join()
    return subprocess.CompletedProcess(list(argv), proc.returncode, _text(chunks["out"]),
                                       _text(chunks["err"]))


def _text(chunks: list[bytes]) -> str:
    """What `text=True` reads: UTF-8, each CRLF or lone CR a newline."""
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
