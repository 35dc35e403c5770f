"""The reference's transport answers a lone tools/call at once (`stdio_transport`'s `answer_now`), without the
SDK dispatcher's per-request task: the bytes on stdout and stderr must stay the dispatcher's, whatever the
frames and however they are chunked. Two real processes over stdio take the same writes: the reference, and
tests/servers/reference_dispatched.py (every request through the dispatcher, as before the fast path).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference_server import sdk050
from reference_server.server import answered_at_once
from tests.cli import REPO

REFERENCE: Final = [sys.executable, "-m", "reference_server"]
DISPATCHED: Final = [sys.executable, str(REPO / "tests" / "servers" / "reference_dispatched.py")]
WAIT: Final = 60.0
"""Seconds an answer may take (a loaded machine): the test never depends on how fast it comes."""

_scalars = st.one_of(  # JSON's numbers only: a frame with Infinity is no JSON, so it gets no answer
    st.none(), st.booleans(), st.integers(-3, 9), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
_arguments = st.fixed_dictionaries(
    {},
    optional={
        "thought": st.one_of(st.text(max_size=20), _scalars),
        "thoughtNumber": st.one_of(st.integers(-1, 9), _scalars),
        "totalThoughts": st.one_of(st.integers(-1, 9), _scalars),
        "nextThoughtNeeded": st.one_of(st.booleans(), _scalars),
        "isRevision": _scalars,
        "revisesThought": _scalars,
        "branchFromThought": st.one_of(st.integers(0, 4), _scalars),
        "branchId": st.one_of(st.sampled_from(["a", "b", "__proto__"]), _scalars),
    },
)
_ids = st.one_of(st.integers(0, 40), st.sampled_from(["1", "x"]))
_call_params = st.one_of(
    st.fixed_dictionaries({"name": st.sampled_from(["sequentialthinking", "other"])},
                          optional={"arguments": _arguments}),
    st.sampled_from([{}, {"name": 7}, {"name": "sequentialthinking", "arguments": []}]),  # zod refuses these
)
_requests = st.one_of(
    st.builds(lambda i, p: {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": p},
              _ids, _call_params),
    st.builds(lambda i, m: {"jsonrpc": "2.0", "id": i, "method": m}, _ids,
              st.sampled_from(["ping", "tools/list", "resources/list"])),
)
_frames = st.one_of(_requests, st.just({"jsonrpc": "2.0", "method": "notifications/initialized"}))
STEPS: Final = st.lists(st.lists(_frames, min_size=1, max_size=3), min_size=1, max_size=6)
"""Writes of one to three frames each: a lone request is the fast path's, several in one write are not."""
LONE_CALL: Final[list[dict[str, Any]]] = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
    "name": "sequentialthinking",
    "arguments": {"thought": "t", "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": True}}}]
"""Every example opens with one write the fast path answers."""


class _Process:
    """A server process over pipes: frames written, answer lines read with a bound."""

    def __init__(self, command: list[str]) -> None:
        env = {**os.environ, "FORCE_COLOR": "0"}
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, cwd=REPO)
        self._pending = b""
        self._stderr: list[bytes] = []
        self._reading = threading.Thread(target=self._read_stderr, daemon=True)  # a full pipe would stall it
        self._reading.start()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        while chunk := os.read(self.proc.stderr.fileno(), 1 << 16):
            self._stderr.append(chunk)

    def write(self, frames: list[dict[str, Any]]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(json.dumps(frame).encode() + b"\n" for frame in frames))
        self.proc.stdin.flush()

    def lines(self, count: int) -> list[bytes]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + WAIT
        while self._pending.count(b"\n") < count:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"no answer within {WAIT} s"
            chunk = os.read(fd, 1 << 16)
            assert chunk, "the server ended"
            self._pending += chunk
        *read, self._pending = self._pending.split(b"\n", count)
        return read

    def end(self) -> bytes:
        """Close stdin; its stderr whole, and nothing more on stdout."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        self.proc.wait(WAIT)
        self._reading.join(WAIT)
        assert self._pending + rest == b""
        return b"".join(self._stderr)


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[_Process, _Process]]:
    fast, dispatched = _Process(REFERENCE), _Process(DISPATCHED)
    yield fast, dispatched
    assert fast.end() == dispatched.end()  # every box and the banner, byte for byte


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(STEPS)
def test_lone_calls_answered_at_once_get_the_dispatchers_bytes(
    pair: tuple[_Process, _Process], steps: list[list[dict[str, Any]]]
) -> None:
    fast, dispatched = pair
    for frames in [LONE_CALL, *steps]:
        answers = sum(1 for frame in frames if "id" in frame)
        fast.write(frames)
        dispatched.write(frames)
        assert fast.lines(answers) == dispatched.lines(answers)


def test_the_fast_path_takes_a_call_zod_accepts_and_nothing_else() -> None:
    """What `answered_at_once` leaves to the dispatcher: the tests above would pass vacuously were it all."""
    answered: list[object] = []

    def call_tool(params: Any) -> dict[str, Any]:
        answered.append(params)
        return {"content": []}

    params: dict[str, Any] = LONE_CALL[0]["params"]
    assert answered_at_once(call_tool, "tools/call", params) == {"content": []}
    assert answered == [params]
    left: list[tuple[str, dict[str, Any] | None]] = [
        ("tools/call", None), ("tools/call", {"name": 7}), ("ping", None), ("tools/list", None),
        ("initialize", params)]
    for method, refused in left:
        assert answered_at_once(call_tool, method, refused) is None
    assert sdk050.request_issues("tools/call", {"name": 7})
    assert answered == [params]
