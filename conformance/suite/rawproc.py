"""A bare server process for records about the process itself (exit status, signals, a closed or discarded
pipe), which the shared drivers deliberately never do to a server.

Checks that only need bare pipes (the banner, framing, one loop) share pooled processes (`RawServer.pooled`):
one process serves several while it stays healthy; checks that end their process (closed stdin or stdout,
a signal) start their own.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

from conformance.drivers import process
from conformance.jsontypes import JSON
from conformance.suite.session import PROTOCOL_VERSION
from conformance.targets.specs import Target

CLIENT_INFO: dict[str, JSON] = {"name": "seqthink-conformance", "version": "0.1.0"}

_Key = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]
_idle: dict[_Key, list[RawServer]] = {}


def close_pool() -> None:
    """End every pooled process at once (at the end of a session)."""
    pooled = [raw for idle in _idle.values() for raw in idle]
    _idle.clear()
    closing = [threading.Thread(target=raw.close) for raw in pooled]
    for thread in closing:
        thread.start()
    for thread in closing:
        thread.join()


class RawServer:
    """One spawned server with plain pipes (stderr optionally discarded to /dev/null); always ended on
    exit."""

    def __init__(self, target: Target, *, discard_stderr: bool = False, timeout: float = 10.0) -> None:
        self.target = target
        self.timeout = timeout
        self._next_id = 1
        self._buffer = b""
        self.sent = False
        """Whether anything was written to its stdin: a pristine process has its initial state."""
        self.spent = False
        """Whether a check closed a pipe or signalled it: never lent again."""
        self.seen = bytearray()
        """Every stderr byte read so far, from the start of the process."""
        self._initialized: dict[str, JSON] | None = None
        self.proc = subprocess.Popen(
            list(target.command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if discard_stderr else subprocess.PIPE,
            bufsize=0,
            env=process.merged_env(target.env),
            start_new_session=True,
        )
        process.register_group(self.proc.pid)

    def __enter__(self) -> RawServer:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @classmethod
    @contextmanager
    def pooled(cls, target: Target, *, pristine: bool = False) -> Iterator[RawServer]:
        """A process from the pool (started if none fits); `pristine`: nothing has been written to it yet.

        It goes back to the pool only if the check passed and left it healthy: alive, not spent, and with no
        unread stdout that the next check would take for its own.
        """
        key = (tuple(target.command), tuple(sorted(target.env.items())))
        idle = _idle.setdefault(key, [])
        fitting = [r for r in idle if not (pristine and r.sent) and r.proc.poll() is None]
        fitting.sort(key=lambda r: not r.sent)  # keep pristine processes for the checks that need them
        raw = fitting[0] if fitting else cls(target)
        if raw in idle:
            idle.remove(raw)
        ok = False
        try:
            yield raw
            ok = True
        finally:
            if ok and raw._reusable():
                idle.append(raw)
            else:
                raw.close()

    def _reusable(self) -> bool:
        if self.spent or self.proc.poll() is not None or self._buffer:
            return False
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout.fileno()], [], [], 0)
        if ready:
            return False
        self.stderr_now()
        return True

    def close(self) -> None:
        process.terminate(self.proc)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()

    # -- pipes -------------------------------------------------------------------------------------

    def write(self, frame: bytes) -> None:
        assert self.proc.stdin is not None
        self.sent = True
        view = memoryview(frame)
        while view:
            written = self.proc.stdin.write(view)
            view = view[written or 0 :]

    def send(self, message: dict[str, JSON]) -> None:
        self.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")

    def read_line(self, timeout: float | None = None) -> bytes | None:
        """The next stdout line, or None when nothing arrives in time (or stdout ended)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def request(self, method: str, params: JSON) -> dict[str, JSON]:
        request_id = self._next_id
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        line = self.read_line()
        assert line is not None, f"no answer to {method} within {self.timeout}s"
        answer = json.loads(line)
        assert isinstance(answer, dict) and answer.get("id") == request_id, answer
        return answer

    def initialize(self) -> dict[str, JSON]:
        """The handshake, once per process: a pooled process lent again is already initialized."""
        if self._initialized is not None:
            return self._initialized
        answer = self.request(
            "initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self._initialized = answer
        return answer

    def stderr_now(self, wait: float = 0.0) -> bytes:
        """Whatever stderr holds after waiting up to `wait` seconds for the first bytes (pipe mode only)."""
        assert self.proc.stderr is not None
        fd = self.proc.stderr.fileno()
        data = b""
        deadline = time.monotonic() + wait
        while True:
            remaining = max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], remaining if not data else 0.05)
            if not ready:
                if data or remaining <= 0:
                    return data
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return data
            data += chunk
            self.seen += chunk

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.spent = True
        self.proc.stdin.close()

    def close_stdout(self) -> None:
        assert self.proc.stdout is not None
        self.spent = True
        self.proc.stdout.close()

    def signal(self, sig: signal.Signals) -> None:
        self.spent = True
        self.proc.send_signal(sig)

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
