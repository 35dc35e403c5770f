"""The reference server under malformed and hostile frames: it answers or ignores each, and keeps serving.

One reference process takes every frame of the module (random bytes, mutated tool calls, wrong
JSON-RPC shapes, huge and deeply nested values, invalid UTF-8, lone surrogates); after each batch a
ping and a valid tool call with fresh ids must be answered, the store must only have grown, and
stderr must hold nothing but the banner and thought boxes (no Python traceback or log line).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance.drivers.wire import WireDriver
from conformance.targets.specs import resolve_target
from reference_server.toolspec import BANNER

VALID_CALL: Final = (
    b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sequentialthinking","arguments":'
    b'{"thought":"fuzz","thoughtNumber":1,"totalThoughts":2,"nextThoughtNeeded":true,'
    b'"branchFromThought":1,"branchId":"b"}}}\n'
)
PROBE_BASE: Final = 10**12
"""Probe ids live far above anything a fuzzed frame carries, so their answers are unambiguous."""


def is_zod_refusal(error: dict[str, Any]) -> bool:
    """-32603 carrying zod's issue list: how the original (and so the reference) refuses invalid params, not
    a handler that crashed."""
    try:
        issues = json.loads(str(error.get("message")))
    except ValueError:
        return False
    return error.get("code") == -32603 and isinstance(issues, list) and all(
        isinstance(issue, dict) and issue.get("code") == "invalid_type" for issue in issues)


class Fuzzed:
    """The reference process under fuzz, with a probe that proves it still serves."""

    def __init__(self, wire: WireDriver) -> None:
        self.wire = wire
        self.probes = 0
        self.history = 0
        self.internal_errors: list[dict[str, Any]] = []

    def answer_to(self, frame: bytes, request_id: int, timeout: float = 20.0) -> dict[str, Any]:
        """Send `frame` and read stdout until the response carrying `request_id`, skipping others."""
        self.wire.send_raw(frame)
        while True:
            message = json.loads(self.wire.read_frame(timeout=timeout))
            error = message.get("error")
            if isinstance(error, dict) and error.get("code") in (0, -32603) and not is_zod_refusal(error):
                self.internal_errors.append(message)
            if message.get("id") == request_id and "method" not in message:
                return dict(message)

    def assert_serving(self) -> None:
        """Alive, answering a ping and a tool call, and no handler has crashed into an internal error."""
        assert self.wire.is_alive(), self.wire.stderr_tail()
        self.probes += 1
        ping_id = PROBE_BASE + 2 * self.probes
        ping = self.answer_to(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % ping_id, ping_id)
        assert ping.get("result") == {}, ping
        call_id = ping_id + 1
        answer = self.answer_to(VALID_CALL.replace(b'"id":7', b'"id":%d' % call_id, 1), call_id)
        result = answer["result"]
        assert not result.get("isError"), result
        status = json.loads(result["content"][0]["text"])
        assert status["thoughtHistoryLength"] > self.history
        assert "b" in status["branches"]
        self.history = status["thoughtHistoryLength"]
        assert self.internal_errors == []

    def assert_stderr_clean(self) -> None:
        stderr = self.wire.stderr_bytes()
        assert stderr.startswith(BANNER)
        for marker in (b"Traceback", b"Error:", b"WARNING", b"Exception", b"exception"):
            assert marker not in stderr.replace(b"fuzz", b""), marker


@pytest.fixture(scope="module")
def fuzzed() -> Iterator[Fuzzed]:
    reference = resolve_target("reference")
    with WireDriver(reference.command, env=reference.env, timeout=60) as wire:
        wire.initialize()
        subject = Fuzzed(wire)
        subject.assert_serving()
        yield subject
        subject.assert_stderr_clean()


def mutate(frame: bytes, rng: random.Random, edits: int) -> bytes:
    """Byte-level damage: flips, insertions, deletions and duplications, never a newline (one frame)."""
    data = bytearray(frame.rstrip(b"\n"))
    for _ in range(edits):
        choice = rng.randrange(4)
        position = rng.randrange(len(data) + 1)
        if choice == 0 and data:
            data[min(position, len(data) - 1)] = rng.randrange(256)
        elif choice == 1:
            data.insert(position, rng.choice(b'{}[]":,\\0123456789.eE+-ntfu\x00\xff\xc3'))
        elif choice == 2 and data:
            del data[min(position, len(data) - 1)]
        else:
            data[position:position] = data[position : position + rng.randrange(1, 16)]
    return bytes(data).replace(b"\n", b" ") + b"\n"


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.binary(max_size=300), min_size=1, max_size=8))
@example([b"\xff\xfe\x00", b"", b"\r", b"{", b"}" * 100, b"\xed\xa0\x80"])
def test_random_bytes_are_survived(fuzzed: Fuzzed, chunks: list[bytes]) -> None:
    fuzzed.wire.send_raw(b"\n".join(chunks) + b"\n")
    fuzzed.assert_serving()


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=1, max_value=12))
def test_mutated_tool_calls_are_survived(fuzzed: Fuzzed, seed: int, edits: int) -> None:
    rng = random.Random(seed)
    fuzzed.wire.send_raw(b"".join(mutate(VALID_CALL, rng, edits) for _ in range(4)))
    fuzzed.assert_serving()


json_garbage = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=15,
)
envelope_keys = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "extra"])
methods = st.sampled_from(
    ["tools/call", "tools/list", "initialize", "ping", "notifications/cancelled", "notifications/initialized",
     "notifications/progress", "resources/list", "logging/setLevel", "completion/complete", "server/discover",
     "subscriptions/listen", ""]
) | st.text(max_size=12)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(envelope_keys, json_garbage, max_size=5), methods, json_garbage)
def test_wrong_jsonrpc_shapes_are_survived(
    fuzzed: Fuzzed, envelope: dict[str, Any], method: str, params: Any
) -> None:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, **envelope}
    if "params" not in envelope:
        message["params"] = params
    fuzzed.wire.send_raw(json.dumps(message).encode() + b"\n")
    fuzzed.assert_serving()


def tool_call(arguments: bytes, request_id: int = 7) -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sequentialthinking","arguments":%s}}\n'
        % (request_id, arguments)
    )


def thought_call(fields: bytes) -> bytes:
    """A tool call whose arguments are `fields` (raw bytes) after a valid thought."""
    head = b'{"thought":"x","thoughtNumber":1,"totalThoughts":1,"nextThoughtNeeded":true,'
    return tool_call(head + fields + b"}")


def ping(request_id: int, extra: bytes = b"") -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"ping"%s}\n' % (request_id, extra)


HOSTILE: Final[dict[str, bytes]] = {
    "not json": b"this is not json\n",
    "truncated": VALID_CALL[:40] + b"\n",
    "empty lines": b"\n\n\n",
    "bare CR separators": ping(1).rstrip(b"\n") + b"\r" + ping(2),
    "NaN and Infinity": tool_call(b'{"thought":"x","thoughtNumber":NaN,"totalThoughts":Infinity}'),
    "batch array": b"[" + ping(1).rstrip(b"\n") + b"," + ping(2).rstrip(b"\n") + b"]\n",
    "arguments null": tool_call(b"null"),
    "arguments array": tool_call(b"[1,2]"),
    "arguments string": tool_call(b'"x"'),
    "params array": b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1]}\n',
    "id object": b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n',
    "id 1e400": b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}\n',
    "lone surrogates everywhere": b'{"jsonrpc":"2.0","id":"\\ud800","method":"tools/call",'
    b'"params":{"name":"\\udfff","arguments":{"\\ud800":"\\udc00"}}}\n',
    "invalid utf-8 in strings": thought_call(b'"branchFromThought":1,"branchId":"\xff\xfe\xed\xa0\x80\xc3"'),
    "NUL escapes": thought_call(b'"branchFromThought":1,"branchId":"\\u0000"'),
    "raw control character": tool_call(b'{"thought":"a\x01b"}'),
    "100k-digit number": thought_call(b'"revisesThought":' + b"9" * 100_000),
    "nesting 100k": thought_call(b'"branchFromThought":1,"branchId":' + b"[" * 100_000 + b"]" * 100_000),
    "nesting 600k (past the parser)": thought_call(b'"x":' + b"[" * 600_000 + b"]" * 600_000),
    "unterminated nesting": b"[" * 200_000 + b"\n",
    "1 MiB thought": tool_call(
        b'{"thought":"' + b"x" * (1 << 20) + b'","thoughtNumber":1,"totalThoughts":1,'
        b'"nextThoughtNeeded":false}'
    ),
    "30 MB frame": ping(46, b',"params":{"pad":"' + b"y" * (30 << 20) + b'"}'),
    "two hundred frames in one write": VALID_CALL * 200,
    "unknown notification": b'{"jsonrpc":"2.0","method":"notifications/whatever","params":{"a":[1,{}]}}\n',
    "cancel of nothing": b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n',
    "response to nothing": b'{"jsonrpc":"2.0","id":42,"result":{"x":1}}\n',
    "error to nothing": b'{"jsonrpc":"2.0","id":43,"error":{"code":1,"message":"m"}}\n',
    "second initialize": b'{"jsonrpc":"2.0","id":44,"method":"initialize","params":{"protocolVersion":"1999",'
    b'"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}\n',
    "modern envelope": b'{"jsonrpc":"2.0","id":45,"method":"tools/list","params":{"_meta":'
    b'{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}\n',
    "duplicate ids": VALID_CALL + VALID_CALL,
}


@pytest.mark.parametrize("frame", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_frames_are_survived(fuzzed: Fuzzed, frame: bytes) -> None:
    fuzzed.wire.send_raw(frame)
    fuzzed.assert_serving()


def test_frame_split_across_writes_is_reassembled(fuzzed: Fuzzed) -> None:
    frame = VALID_CALL.replace(b'"id":7', b'"id":99', 1)
    for start in range(0, len(frame), 7):
        fuzzed.wire.send_raw(frame[start : start + 7])
    message = json.loads(fuzzed.wire.read_frame())
    assert message["id"] == 99 and not message["result"].get("isError")
    fuzzed.assert_serving()


def test_pipelined_calls_are_served_in_order(fuzzed: Fuzzed) -> None:
    """200 calls written at once come back with consecutive thoughtHistoryLength in request order."""
    frames = b"".join(VALID_CALL.replace(b'"id":7', b'"id":%d' % (5000 + k), 1) for k in range(200))
    fuzzed.wire.send_raw(frames)
    lengths: dict[int, int] = {}
    while len(lengths) < 200:
        message = json.loads(fuzzed.wire.read_frame())
        if isinstance(message.get("id"), int) and 5000 <= message["id"] < 5200:
            status = json.loads(message["result"]["content"][0]["text"])
            lengths[message["id"]] = status["thoughtHistoryLength"]
    ordered = [lengths[5000 + k] for k in range(200)]
    assert ordered == list(range(ordered[0], ordered[0] + 200))
    fuzzed.assert_serving()
