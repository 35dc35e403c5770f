"""Newline-delimited JSON-RPC on stdin/stdout, framed the way the original's SDK (0.5.0) frames it.

The SDK's own `mcp.server.stdio.stdio_server` parses frames with pydantic's JSON parser, which
rejects lone surrogates ("\\ud800") and reads raw `NaN`/`Infinity`, and its text layer splits lines
on a bare CR; its writer raises on a lone surrogate in any outgoing string. The original reads
frames with `Buffer.toString("utf8")` and `JSON.parse`, so a tool call carrying a lone surrogate
reaches the tool there. This transport therefore splits on LF only, decodes UTF-8 with U+FFFD
replacement (node's decoder and Python's agree byte for byte), parses with `json.loads` restricted
to JSON.parse's grammar, and hands the SDK the same `SessionMessage` stream `stdio_server` would:
everything above the framing (dispatch, initialize, errors) is the SDK's.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import sys
import threading
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, Final, NoReturn, TypeAlias

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp.shared.message import SessionMessage
from mcp_types import INTERNAL_ERROR, METHOD_NOT_FOUND

from reference_server import sdk050
from reference_server.jsvalue import stringify

ReadStream: TypeAlias = MemoryObjectReceiveStream[SessionMessage | Exception]
WriteStream: TypeAlias = MemoryObjectSendStream[SessionMessage]

_READ_CHUNK: Final = 1 << 16
_INT_DIGITS_LIMIT: Final = 4300
_EOF_GRACE: Final = 5.0
"""Seconds to wait at end of input for answers to requests still being handled (a cancelled one never is)."""


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _parse_int(text: str) -> int | float:
    """Exact integers as Python keeps them; past int()'s digit limit straight to the double JS holds."""
    if len(text) <= _INT_DIGITS_LIMIT:
        return int(text)
    return float(text)


def loads_js(text: str) -> Any:
    """JSON.parse's grammar: no NaN/Infinity literals; lone surrogate escapes kept; any number size.

    JSON.parse has no nesting limit; json.loads recurses, so a frame nested deeper than the
    interpreter's recursion limit is parsed again on a thread with a large stack (up to
    `DEEP_NESTING_LIMIT` levels; past that the frame is dropped as unparseable).
    """
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int)
    except RecursionError:
        return _loads_deep(text)


DEEP_NESTING_LIMIT: Final = 500_000
_DEEP_STACK_BYTES: Final = 256 << 20


def _loads_deep(text: str) -> Any:
    outcome: list[Any] = []
    failure: list[BaseException] = []

    def parse() -> None:
        try:
            outcome.append(json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int))
        except (ValueError, RecursionError) as exc:
            failure.append(exc)

    previous_limit = sys.getrecursionlimit()
    previous_stack = threading.stack_size(_DEEP_STACK_BYTES)
    sys.setrecursionlimit(DEEP_NESTING_LIMIT)
    try:
        worker = threading.Thread(target=parse, name="deep-json")
        worker.start()
        worker.join()
    finally:
        sys.setrecursionlimit(previous_limit)
        threading.stack_size(previous_stack)
    if failure:
        raise failure[0]
    return outcome[0]


def decode_frame(line: bytes) -> SessionMessage | Exception:
    """One frame (without its LF) to what the SDK's read stream carries: a message or the failure.

    A frame SDK 0.5.0's `JSONRPCMessageSchema` refuses (a key beyond the envelope's, `params` or
    `_meta` not an object, an id or progress token neither string nor integer) is dropped there, so
    it is a failure here too; a request's id is the double JSON.parse made of it."""
    try:
        value = loads_js(line.decode("utf-8", "replace"))
        if not sdk050.message_accepted(value):
            return ValueError("not a message SDK 0.5.0 accepts")
        if "id" in value:
            value["id"] = sdk050.js_request_id(value["id"])
        message = types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except (ValueError, RecursionError) as exc:
        return exc
    return SessionMessage(message)


def encode_frame(message: types.JSONRPCMessage) -> bytes:
    """A message as one line, as SDK 0.5.0's `JSON.stringify(message) + "\\n"` writes it: a result's
    envelope in its key order (`{result, jsonrpc, id}`, an error's `{jsonrpc, id, error}`), numbers and
    escapes as V8 writes them (non-ASCII raw, a lone surrogate as \\udXXX)."""
    data = message.model_dump(by_alias=True, mode="json", exclude_unset=True)
    if isinstance(message, types.JSONRPCResponse):
        data = {"result": data["result"], "jsonrpc": data["jsonrpc"], "id": data["id"]}
    return stringify(data).encode("utf-8") + b"\n"


def write_all_blocking(fd: int, data: bytes) -> None:
    """Write every byte, waiting when the descriptor is non-blocking and full (like node's sync pipes)."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [])
            continue
        view = view[written:]


async def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            await anyio.wait_writable(fd)
            continue
        view = view[written:]


async def _read_chunks(fd: int) -> AsyncIterator[bytes]:
    while True:
        try:
            chunk = os.read(fd, _READ_CHUNK)
        except BlockingIOError:
            await anyio.wait_readable(fd)
            continue
        if not chunk:
            return
        yield chunk


class _InFlight:
    """Requests handed to the SDK and not yet answered: at end of input the original answers them all
    before its event loop empties, so the reader holds the stream open until they are written. The event
    is made only at end of input (one a call was a tenth of the transport's own CPU)."""

    def __init__(self) -> None:
        self._ids: set[object] = set()
        self._empty: anyio.Event | None = None

    def opened(self, request_id: object) -> None:
        self._ids.add(request_id)

    def closed(self, request_id: object) -> None:
        self._ids.discard(request_id)
        if not self._ids and self._empty is not None:
            self._empty.set()

    def idle(self) -> bool:
        """Whether every request handed to the SDK has been answered (its answer written) or dropped."""
        return not self._ids

    async def drained(self, grace: float) -> None:
        self._empty = anyio.Event()
        if not self._ids:
            self._empty.set()
        with anyio.move_on_after(grace):
            await self._empty.wait()


def _id_key(request_id: object) -> tuple[bool, object]:
    """A request id as a JavaScript Map key: the string "1" and the number 1 are different keys."""
    return isinstance(request_id, str), request_id


class _Withheld:
    """SDK 0.5.0's cancellation, as its event loop makes it: a chunk read from stdin is parsed whole before
    any handler runs, and the cancel handler itself runs one microtask later, so `notifications/cancelled`
    aborts the request its id keys in the abort-controller map once the whole chunk is parsed: the last
    handled request of the chunk with that id, wherever the notification stands in the chunk (its handler
    still runs, its answer is not sent), and nothing else (a request of an earlier chunk has been answered).
    The Python SDK's own cancellation would stop a handler before it runs, so the notification stops here:
    the aborted request is handed on under a private id, and the answer carrying that id is dropped."""

    def __init__(self) -> None:
        self._handled: list[types.JSONRPCRequest] = []
        self._cancelled: set[tuple[bool, object]] = set()
        self._token = f"withheld-{secrets.token_hex(8)}-"
        self._count = 0

    def read(self, request: types.JSONRPCRequest) -> None:
        """A request of this chunk a cancel may abort: one SDK 0.5.0 has a handler for (an unknown method is
        refused at once and never enters the map)."""
        if request.method in sdk050.HANDLED_METHODS:
            self._handled.append(request)

    def cancel(self, params: dict[str, Any] | None) -> None:
        request_id = sdk050.cancelled_request(params)
        if request_id is not None:
            self._cancelled.add(_id_key(request_id))

    def aborted(self) -> set[int]:
        """The requests of the chunk just read whose answers are withheld (by `id()`), and a fresh chunk."""
        last: dict[tuple[bool, object], types.JSONRPCRequest] = {}
        for request in self._handled:
            last[_id_key(request.id)] = request
        aborted = {id(request) for key, request in last.items() if key in self._cancelled}
        self._handled.clear()
        self._cancelled.clear()
        return aborted

    def private_id(self) -> str:
        """An id no client can have sent, for a request handed on whose answer is dropped."""
        self._count += 1
        return f"{self._token}{self._count}"

    def answer_goes_out(self, request_id: object) -> bool:
        """Whether an answer is sent: not one to a request handed on under a private id."""
        return not (isinstance(request_id, str) and request_id.startswith(self._token))


def answer_rank(request: types.JSONRPCRequest) -> int:
    """When SDK 0.5.0 answers a request among those of its chunk: an unknown method at once, while the chunk
    is parsed (0); a request its zod schema refuses one microtask after the chunk (1); a handler's result
    three microtasks later (2), every handler being an async function or wrapped in a resolved promise."""
    if request.method not in sdk050.HANDLED_METHODS:
        return 0
    return 1 if sdk050.request_issues(request.method, request.params) else 2


def _rank_of_answer(answer: types.JSONRPCResponse | types.JSONRPCError) -> int:
    """`answer_rank` read back from an answer (two requests of one chunk may share an id)."""
    if isinstance(answer, types.JSONRPCError) and answer.error.code == METHOD_NOT_FOUND:
        return 0
    if isinstance(answer, types.JSONRPCError) and answer.error.code == INTERNAL_ERROR:
        return 1
    return 2


class _Order:
    """The answers in SDK 0.5.0's order: a chunk's answers go out by `answer_rank`, then in the order read,
    and all of them before the next chunk's (its microtasks run before the next read). An answer is held
    until those due before it are out; one nobody waits for goes out as it comes."""

    def __init__(self) -> None:
        self._due: deque[tuple[tuple[bool, object], int]] = deque()
        self._awaited: Counter[tuple[tuple[bool, object], int]] = Counter()
        self._held: dict[tuple[tuple[bool, object], int], deque[bytes]] = {}

    def chunk(self, requests: list[types.JSONRPCRequest]) -> None:
        """The requests of one chunk whose answers will be sent, in the order read."""
        slots = [(_id_key(request.id), answer_rank(request)) for request in requests]
        for slot in sorted(slots, key=lambda slot: slot[1]):
            self._due.append(slot)
            self._awaited[slot] += 1

    def idle(self) -> bool:
        """Whether no answer is awaited: one written now goes out in SDK 0.5.0's order whatever it answers."""
        return not self._due

    def answered(self, answer: types.JSONRPCResponse | types.JSONRPCError, frame: bytes) -> list[bytes]:
        """The frames to write now that `frame` carries `answer`."""
        slot = (_id_key(answer.id), _rank_of_answer(answer))
        if not self._awaited[slot]:
            return [frame]
        self._awaited[slot] -= 1
        self._held.setdefault(slot, deque()).append(frame)
        ready: list[bytes] = []
        while self._due and (held := self._held.get(self._due[0])):
            ready.append(held.popleft())
            if not held:
                del self._held[self._due[0]]
            self._due.popleft()
        return ready


AnswerNow: TypeAlias = Callable[[str, Mapping[str, Any] | None], dict[str, Any] | None]
"""(method, params) to the result the runner would return for the request, computed at once, or None for a
request the SDK's dispatcher is to serve (the server's `answered_at_once`)."""


def answer_frame(request: types.JSONRPCRequest, answer_now: AnswerNow) -> bytes | None:
    """The frame the SDK's dispatcher writes for `request` when `answer_now` answers it (its result, or a
    handler's exception as the dispatcher words it: `handler_exception_to_error_data`, else code 0 and the
    exception's text), None when the dispatcher is to serve it."""
    try:
        result = answer_now(request.method, request.params)
    except Exception as exc:
        error = handler_exception_to_error_data(exc) or types.ErrorData(code=0, message=str(exc))
        return encode_frame(types.JSONRPCError(jsonrpc="2.0", id=request.id, error=error))
    if result is None:
        return None
    return encode_frame(types.JSONRPCResponse(jsonrpc="2.0", id=request.id, result=result))


@asynccontextmanager
async def stdio_transport(
    stdin_fd: int = 0, stdout_fd: int = 1, answer_now: AnswerNow | None = None
) -> AsyncIterator[tuple[ReadStream, WriteStream]]:
    """The (read, write) stream pair `Server.run` takes, served on the given descriptors.

    A chunk that is one request, read while nothing is in flight or being written, is answered here when
    `answer_now` answers it: the same frame the dispatcher would write (`answer_frame`), without its
    per-request task, memory-stream hops and cancel scope (about half of a call's CPU in the server, and
    each hop one more wake-up a loaded machine delays). Nothing is pending, so no order or cancel of
    SDK 0.5.0's (`_Order`, `_Withheld`) can be at stake: a later chunk's cancel finds it answered, as there.
    """
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    was_blocking = os.get_blocking(stdin_fd)
    os.set_blocking(stdin_fd, False)

    inflight = _InFlight()
    withheld = _Withheld()
    order = _Order()
    writing = [0]  # frames the writer task is writing: none while an answer is written here

    async def forward(frames: list[bytes]) -> None:
        """One chunk's frames: all of them read (and any cancel among them applied) before any is handed
        on, as SDK 0.5.0 parses a chunk whole before its first handler runs."""
        items = [decode_frame(frame) for frame in frames]
        if answer_now is not None and len(items) == 1 and inflight.idle() and order.idle() and not writing[0]:
            message = items[0].message if isinstance(items[0], SessionMessage) else None
            if isinstance(message, types.JSONRPCRequest):
                frame = answer_frame(message, answer_now)
                if frame is not None:
                    await _write_all(stdout_fd, frame)
                    return
        handed: list[SessionMessage | Exception] = []
        for item in items:
            message = item.message if isinstance(item, SessionMessage) else None
            if isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
                withheld.cancel(message.params)
                continue
            if isinstance(message, types.JSONRPCRequest):
                withheld.read(message)
            handed.append(item)
        aborted = withheld.aborted()
        requests = [
            item.message
            for item in handed
            if isinstance(item, SessionMessage) and isinstance(item.message, types.JSONRPCRequest)
        ]
        order.chunk([request for request in requests if id(request) not in aborted])
        handed = [
            SessionMessage(item.message.model_copy(update={"id": withheld.private_id()}), item.metadata)
            if isinstance(item, SessionMessage) and id(item.message) in aborted else item
            for item in handed
        ]
        for item in handed:
            if isinstance(item, SessionMessage) and isinstance(item.message, types.JSONRPCRequest):
                inflight.opened(item.message.id)
            await read_writer.send(item)

    async def reader() -> None:
        async with read_writer:
            pending = bytearray()
            async for chunk in _read_chunks(stdin_fd):
                end = chunk.find(b"\n")
                if end < 0:
                    pending += chunk
                    continue
                pending += chunk[:end]
                frames = [bytes(pending)]
                pending.clear()
                start = end + 1
                while (end := chunk.find(b"\n", start)) >= 0:
                    frames.append(chunk[start:end])
                    start = end + 1
                pending += chunk[start:]
                await forward(frames)
            await inflight.drained(_EOF_GRACE)

    async def writer() -> None:
        async with write_reader:
            async for session_message in write_reader:
                answered = session_message.message
                writing[0] += 1
                try:
                    if not isinstance(answered, types.JSONRPCResponse | types.JSONRPCError):
                        await _write_all(stdout_fd, encode_frame(answered))
                        continue
                    if withheld.answer_goes_out(answered.id):
                        for frame in order.answered(answered, encode_frame(answered)):
                            await _write_all(stdout_fd, frame)
                finally:
                    writing[0] -= 1
                inflight.closed(answered.id)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            group.start_soon(writer)
            yield read_stream, write_stream
    finally:
        os.set_blocking(stdin_fd, was_blocking)
