"""A bare server process for records about the process itself (exit status, signals, a closed or discarded
pipe), which the shared drivers deliberately never do to a server."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from types import TracebackType

from conformance.drivers import process
from conformance.jsontypes import JSON
from conformance.suite.session import PROTOCOL_VERSION
from conformance.targets.specs import Target

CLIENT_INFO: dict[str, JSON] = {"name": "seqthink-conformance", "version": "0.1.0"}


class RawServer:
    """One spawned server with plain pipes (stderr optionally discarded to /dev/null); always ended on
    exit."""

    def __init__(self, target: Target, *, discard_stderr: bool = False, timeout: float = 10.0) -> None:
        self.target = target
        self.timeout = timeout
        self._next_id = 1
        self._buffer = b""
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

    def close(self) -> None:
        process.terminate(self.proc)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()

    # -- pipes -------------------------------------------------------------------------------------

    def write(self, frame: bytes) -> None:
        assert self.proc.stdin is not None
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
        answer = self.request(
            "initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
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

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def close_stdout(self) -> None:
        assert self.proc.stdout is not None
        self.proc.stdout.close()

    def signal(self, sig: signal.Signals) -> None:
        self.proc.send_signal(sig)

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
