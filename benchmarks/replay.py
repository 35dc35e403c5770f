"""The server's own share of a run: the run's answered requests, replayed in order by a bare client.

A fixed small call repeated understates what a run costs the server (a shared process's state grows over
thousands of calls, answers get larger, error paths and large thoughts cost more), so the floor is measured
on the run's own calls, read back from its transcript (`transcripts/<target>.jsonl` in the run's folder).

The transcript is read as untrusted data: bounded in size, a line that is not a JSON object with a string
`kind` and a string `data` is skipped and counted, a frame that is not a JSON-RPC request is never replayed.
A request is answered when a later received frame (a JSON object without `method`) carries its id; a request
sent again with the same id before that answer leaves the earlier one unanswered.

The transcript does not say which process a frame went to (the frames of the shared process and of fresh
or spare ones interleave, and each driver counts its ids from 1), so the replay drives ONE fresh process,
started and initialized before the clock starts. The run's own `initialize` requests are replayed too (a
round trip per process that the cold start also counts: a millisecond or two).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from benchmarks.bench_drivers import BareLoop
from conformance.targets.specs import Target

MAX_TRANSCRIPT_BYTES: Final = 512 << 20
"""The most of a transcript read (the harness writes at most 128 MiB); the rest is not replayed."""
MAX_LINE_BYTES: Final = 64 << 20
"""A longer line is skipped (and counted), never held whole."""
ANSWER_TIMEOUT: Final = 30.0
"""Seconds a replayed request may wait for its answer before the replay stops (a verdict, not a hang)."""

_IdKey = tuple[str, int | str]


@dataclass(frozen=True)
class Frame:
    """One request to replay: its bytes as sent (newline included) and its id."""

    data: bytes
    id: int | str


@dataclass(frozen=True)
class Extracted:
    """What a transcript holds for the replay, and what was left out of it."""

    frames: list[Frame]
    unanswered: int
    skipped_lines: int
    truncated: bool


@dataclass(frozen=True)
class Replay:
    """The replay's figures: `seconds` sums each request's write-to-answer time."""

    frames: int
    seconds: float
    completed: bool
    reason: str

    @property
    def calls_per_s(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0


def _id_key(value: object) -> _IdKey | None:
    """An id as a key that keeps 1, 1.0 and true apart; None for what is no usable request id."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, str):
        return ("str", value)
    return None


def _lines(path: Path, limit: int, line_limit: int) -> Iterator[bytes | None]:
    """The file's lines up to `limit` bytes; None for a line longer than `line_limit` (skipped whole)."""
    with path.open("rb") as handle:
        read = 0
        while read < limit:
            line = handle.readline(min(line_limit, limit - read) + 1)
            if not line:
                return
            read += len(line)
            if len(line) > line_limit and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):
                    line = handle.readline(1 << 20)
                    read += len(line)
                yield None
                continue
            yield line


def _event(line: bytes | None) -> tuple[str, str] | None:
    """(kind, data) of one transcript line, or None for anything that is not such an event."""
    if line is None:
        return None
    try:
        event = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(event, dict):
        return None
    kind, data = event.get("kind"), event.get("data")
    if not isinstance(kind, str) or not isinstance(data, str):
        return None
    return kind, data


def _message(data: str) -> dict[str, object] | None:
    try:
        message = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, dict) else None


def extract(lines: Iterable[bytes | None], truncated: bool = False) -> Extracted:
    """The answered requests of a transcript's lines, in the order they were sent (see the module's doc)."""
    sent: list[Frame] = []
    pending: dict[_IdKey, int] = {}
    answered: set[int] = set()
    skipped = 0
    for line in lines:
        event = _event(line)
        if event is None:
            skipped += 1
            continue
        kind, data = event
        if kind not in ("sent", "received"):
            continue
        message = _message(data)
        if message is None:
            continue
        key = _id_key(message.get("id")) if "id" in message else None
        if kind == "received":
            if "method" not in message and key is not None and key in pending:
                answered.add(pending.pop(key))
            continue
        if key is None or not isinstance(message.get("method"), str):
            continue
        frame = data.encode("utf-8", errors="backslashreplace")
        if not frame.endswith(b"\n"):
            frame += b"\n"
        pending[key] = len(sent)
        sent.append(Frame(frame, key[1]))
    frames = [frame for index, frame in enumerate(sent) if index in answered]
    unanswered = len(sent) - len(answered)
    return Extracted(frames, unanswered, skipped, truncated)


def read_transcript(
    path: Path, limit: int = MAX_TRANSCRIPT_BYTES, line_limit: int = MAX_LINE_BYTES
) -> Extracted:
    """`extract` over a transcript file, of which at most `limit` bytes are read."""
    truncated = path.stat().st_size > limit
    return extract(_lines(path, limit, line_limit), truncated)


def _answer_id(line: bytes) -> _IdKey | None:
    message = _message(line.decode("utf-8", errors="replace"))
    return _id_key(message.get("id")) if message is not None and "method" not in message else None


def replay(target: Target, frames: list[Frame], timeout: float = ANSWER_TIMEOUT) -> Replay:
    """Each frame written and its answer read by a bare client, on one fresh initialized process.

    Only write-to-answer time is summed: the id check after each answer is off the clock. A request left
    unanswered for `timeout` seconds ends the replay (its process is ended); the figures say so.
    """
    loop = BareLoop(target, drain_stderr=True)
    assert loop.proc.stdin is not None and loop.proc.stdout is not None
    stdin, stdout = loop.proc.stdin, loop.proc.stdout
    progress = [0]
    stop = threading.Event()

    def watchdog() -> None:
        seen, since = -1, time.monotonic()
        while not stop.wait(0.5):
            if progress[0] != seen:
                seen, since = progress[0], time.monotonic()
            elif time.monotonic() - since > timeout:
                loop.proc.kill()
                return

    guard = threading.Thread(target=watchdog, name="replay-watchdog", daemon=True)
    guard.start()
    total = 0.0
    done = 0
    reason = ""
    try:
        for frame in frames:
            want = _id_key(frame.id)
            began = time.perf_counter()
            try:
                stdin.write(frame.data)
                stdin.flush()
            except OSError:
                reason = f"the server stopped reading at request {done + 1}"
                break
            while True:
                line = stdout.readline()
                ended = time.perf_counter()
                if not line or _answer_id(line) == want:
                    break
            if not line:
                reason = (f"no answer to request {done + 1} (id {frame.id!r}) within {timeout:.0f} s"
                          " or the server ended")
                break
            total += ended - began
            done += 1
            progress[0] = done
    finally:
        stop.set()
        guard.join()
        with contextlib.suppress(OSError):
            loop.close()
    return Replay(done, total, done == len(frames), reason)
