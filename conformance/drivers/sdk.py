"""The realistic host: the official `mcp` 2.x client session over stdio (`sdk_stdio.py`: the SDK's stdio
transport with a frame limit), behind a sync facade.

The suite is synchronous (pytest + hypothesis), so the async session lives in an anyio blocking
portal on a background thread. The server's stderr goes into a pipe drained into a bounded buffer (head
and tail), never to the terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager, asynccontextmanager
from typing import Any, Final, TextIO, TypeVar

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client._probe import negotiate_auto  # what `mcp.Client(mode="auto")` runs; ClientSession has no mode
from mcp.client.session import ClientSession, IncomingMessage
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    CallToolResult,
    ClientCapabilities,
    Implementation,
    InitializedNotification,
    InitializeRequest,
    InitializeRequestParams,
    InitializeResult,
    ListToolsResult,
)
from pydantic import ValidationError

from conformance.core.arguments_map import Renamer
from conformance.core.eras import (
    AUTO,
    ERAS,
    LATEST_HANDSHAKE,
    STATELESS_REVISION,
    Era,
    RefusedOffer,
    offered_next,
)
from conformance.core.jsontypes import JSON
from conformance.core.protocol import CLIENT_NAME, CLIENT_VERSION
from conformance.drivers import cancel, process, workfolder
from conformance.drivers.capture import HeadTail
from conformance.drivers.errors import (
    DriverError,
    FrameTooLarge,
    ProtocolViolation,
    ServerExited,
    ServerTimeout,
    TargetError,
)
from conformance.drivers.lifecycle import Managed
from conformance.drivers.sdk_sent import SENT
from conformance.drivers.sdk_stdio import bounded_stdio
from conformance.drivers.stray_lag import StrayLag
from conformance.drivers.transcript import decode
from conformance.drivers.wire import max_frame as default_max_frame

T = TypeVar("T")

CLIENT_INFO: Final = Implementation(name=CLIENT_NAME, version=CLIENT_VERSION)
OFFICIAL_HANDSHAKE: Final = ERAS[3]
"""The era the official client's `initialize` is: it offers its newest handshake revision, 2025-11-25."""
_STDERR_TAIL: Final = 2000
# The SDK logs a traceback for every unparsable stdout line; the driver reports it as a typed error instead.
logging.getLogger("mcp").addHandler(logging.NullHandler())


_DRAIN_WITHIN = 30.0
"""Seconds a gone server's stderr has to be read to its end (every writer gone): the wait ends as soon as it
is, so only a descendant still holding the pipe costs the whole of it (a server alive with its stdout closed
gets 1 s). A fixed 1 s once reported a server's last word as "" under load 10-17."""


class _StderrSink:
    """A pipe whose write end becomes the server's stderr; a thread drains it into a bounded buffer."""

    def __init__(self, limit: int) -> None:
        read_fd, write_fd = os.pipe()
        self.writer: TextIO = open(write_fd, "w", encoding="utf-8")  # noqa: SIM115
        self._read_fd = read_fd
        self._buffer = HeadTail(limit)
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, name="sdk-stderr", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._read_fd, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self._buffer.append(chunk)

    def release_writer(self) -> None:
        """Drop our copy of the write end, so EOF arrives once the server (and its children) are gone."""
        if not self.writer.closed:
            self.writer.close()

    def data(self) -> bytes:
        """Its head and tail, a mark counting the bytes not kept between."""
        with self._lock:
            return self._buffer.kept()

    def tail(self, limit: int = _STDERR_TAIL) -> str:
        with self._lock:
            return decode(self._buffer.last_lines(limit))

    def settle(self, timeout: float) -> None:
        """Wait until what a server wrote before it died is read: its exit can be seen before the drain. Ends
        at stderr's end (every writer gone): a long `timeout` costs only where a descendant holds the pipe."""
        if self.writer.closed:
            self._thread.join(timeout)

    def close(self) -> None:
        """Stop draining once every writer is gone; one still holding the pipe after the server's group was
        killed (a descendant that left the group: `setsid`, a daemonizing double fork) is killed."""
        self.release_writer()
        self._thread.join(1.0)
        if self._thread.is_alive():
            for pid in process.pipe_holders([self._read_fd]):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            self._thread.join(2.0)
        if not self._thread.is_alive():
            os.close(self._read_fd)


class SdkDriver(Managed):
    """`ClientSession` over `stdio_client`, initialized on enter; every failure is a typed `DriverError`."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout: float = 10.0,
        stderr_limit: int = 16 << 20,
        max_frame: int | None = None,
        on_failure: Callable[[DriverError], None] | None = None,
        era: Era = OFFICIAL_HANDSHAKE,
        renames: Mapping[str, str] | None = None,
        strays: StrayLag | None = None,
    ) -> None:
        if not command:
            raise TargetError("empty server command")
        if era not in (OFFICIAL_HANDSHAKE, AUTO):
            raise ValueError(f"the official client connects by initialize at {LATEST_HANDSHAKE} or in auto, "
                             f"not as a {era.name} client")
        self.era = era
        """How the official client connects: `initialize` offering 2025-11-25 (its `legacy` mode), or `auto`
        (`server/discover` at 2026-07-28, falling back to `initialize`)."""
        self.negotiated: str | None = None
        self.refused_offer: RefusedOffer | None = None
        """The client's initialize refused for its version, when another version offered next was accepted."""
        self.command = tuple(command)
        self.renamer = Renamer(renames or {})
        """The port's spelling of the original's argument names (`--arguments-map`), applied to each call."""
        self.on_failure = on_failure
        """Told of every call's failure (death, hang, protocol violation) before it is raised; may raise."""
        self.env = dict(env or {})
        self.timeout = timeout
        self.stderr_limit = stderr_limit
        self.max_frame = max_frame if max_frame is not None else default_max_frame()
        self.initialize_result: InitializeResult | None = None
        self.pid: int | None = None
        self._sink: _StderrSink | None = None
        self._portal_cm: AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._session_cm: AbstractContextManager[ClientSession] | None = None
        self._session: ClientSession | None = None
        self._call_scope: anyio.CancelScope | None = None
        self._stream_error: Exception | None = None
        self.strays_seen = 0
        """Stdout lines the SDK could not read (not JSON-RPC), each read past to the answer after it."""
        self.strays = strays if strays is not None else StrayLag()
        """How long answers of this command follow its stray lines (`Lateness.strays`, the run's; a driver
        made alone learns from its own process only): the grace a stray line gets."""
        self._stray_at: float | None = None
        """When the call under way met its first stray line (anyio's clock)."""
        self._closed = False
        self._serial = SENT.serial()
        self._requests = 0
        """Requests this driver sent after its handshake, numbered as their replay's frames (`sdk_sent`)."""

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> None:
        """Spawn the server through the SDK and run the initialize handshake."""
        if self._portal is not None:
            raise RuntimeError("SdkDriver already started")
        self._sink = _StderrSink(self.stderr_limit)
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._session_cm = self._portal.wrap_async_context_manager(self._connect())
        try:
            self._session = self._session_cm.__enter__()
        except BaseException as exc:
            self._session_cm = None
            # Our copy of the write end goes first: a failed handshake's stderr is read to its end only once
            # every writer is gone (with it held, a loaded machine reported a server's last word as "").
            self._sink.release_writer()
            raise self._map_failure(exc, "initialize") from None
        finally:
            self._sink.release_writer()

    @asynccontextmanager
    async def _connect(self) -> AsyncIterator[ClientSession]:
        assert self._sink is not None, (
            "the harness could not connect the official client: its stderr sink is not set up")
        argv, env, cwd, folder = process.prepared(self.command, self.env)
        transport = bounded_stdio(argv, env, self._sink.writer, self.max_frame, cwd=cwd)
        async with (
            transport as ((read_stream, write_stream), pid),
            ClientSession(
                read_stream,
                write_stream,
                read_timeout_seconds=self.timeout,
                message_handler=self._on_message,
                client_info=CLIENT_INFO,
            ) as session,
        ):
            self.pid = pid
            workfolder.bind(pid, folder)
            process.register_group(self.pid)
            if self.era is AUTO:
                await self._guarded("initialize",
                                    lambda: self._refused_then(session, negotiate_auto(session)))
                self.initialize_result = session.initialize_result
                discovered = session.discover_result
                self.negotiated = (
                    self.initialize_result.protocol_version if self.initialize_result is not None
                    else STATELESS_REVISION if discovered is not None else None
                )
            else:
                self.initialize_result = await self._guarded(
                    "initialize", lambda: self._refused_then(session, session.initialize()))
                self.negotiated = self.initialize_result.protocol_version
            yield session

    async def _refused_then(self, session: ClientSession, opening: Awaitable[T]) -> T | InitializeResult:
        """`opening` (the client's own initialize, or its auto probe), and when the server answers that
        initialize with a JSON-RPC error, one initialize offering each other handshake revision, newest first,
        until one is accepted (`offered_next`): the SDK gives up at the first refusal, but a server refusing
        the version offered is a finding (SPEC-1, said by the era meetings), not a host that cannot start.
        The refusal is kept in `refused_offer`."""
        try:
            return await opening
        except MCPError as refusal:
            if refusal.code in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
                raise
            error: dict[str, JSON] = {"code": refusal.code, "message": refusal.message}
            for version in offered_next(LATEST_HANDSHAKE):
                try:
                    result = await session.send_request(
                        InitializeRequest(params=InitializeRequestParams(
                            protocol_version=version, capabilities=ClientCapabilities(),
                            client_info=CLIENT_INFO)),
                        InitializeResult,
                    )
                except MCPError as again:
                    if again.code in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
                        raise
                    continue
                session.adopt(result)
                await session.send_notification(InitializedNotification())
                self.refused_offer = RefusedOffer(LATEST_HANDSHAKE, error, version)
                return result
            raise

    def close(self) -> None:
        """Shut the session down (the SDK closes stdin, then signals the group); then make sure it is gone."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._session_cm is not None:
                with contextlib.suppress(Exception):
                    self._session_cm.__exit__(None, None, None)
            if self._portal is not None:
                with contextlib.suppress(Exception):
                    self._portal.call(self._portal.stop, True)
            if self._portal_cm is not None:
                with contextlib.suppress(Exception):
                    self._portal_cm.__exit__(None, None, None)
        finally:
            if self.pid is not None:
                process.kill_group_now(self.pid)
                process.forget_group(self.pid)
            if self._sink is not None:
                self._sink.close()

    # -- calls -------------------------------------------------------------------------------------

    async def _on_message(self, message: IncomingMessage) -> None:
        """A line the SDK could not read: as the SDK's own client does, the call reads on for its answer, for
        the learned grace at most (`StrayLag.grace`: a server writing only garbage fails then); a frame too
        long ends it at once."""
        if isinstance(message, Exception):
            if self._stream_error is None or isinstance(message, FrameTooLarge):
                self._stream_error = message  # the call's first stray line is said, as the wire driver's
            self.strays_seen += 1
            if self._call_scope is None:
                return
            if isinstance(message, FrameTooLarge):
                self._call_scope.cancel()
            else:
                now = anyio.current_time()
                if self._stray_at is None:
                    self._stray_at = now
                grace = self.strays.grace(self.command)
                self._call_scope.deadline = min(self._call_scope.deadline, now + grace)

    async def _guarded(self, what: str, call: Callable[[], Awaitable[T]], timeout: float | None = None) -> T:
        """Run one SDK call; an unparsable stdout line not followed by the answer ends it, a hung write by a
        watchdog."""
        self._stream_error = None
        self._stray_at = None
        watchdog = (self.timeout if timeout is None else timeout) * 2 + 1
        try:
            with anyio.CancelScope() as scope:
                self._call_scope = scope
                with anyio.move_on_after(watchdog):
                    answer = await call()
                    if self._stray_at is not None:
                        self.strays.note_answer(self.command, anyio.current_time() - self._stray_at)
                    return answer
        finally:
            self._call_scope = None
        if isinstance(self._stream_error, FrameTooLarge):
            raise FrameTooLarge(self._stream_error.limit, stderr_tail=self.stderr_tail())
        if scope.cancelled_caught and self._stream_error is not None:
            if self._stray_at is not None:
                self.strays.note_unanswered(self.command, anyio.current_time() - self._stray_at)
            raise ProtocolViolation(
                f"server wrote a stdout line that is not JSON-RPC: {self._stream_error}",
                stderr_tail=self.stderr_tail(),
            )
        raise ServerTimeout(what, watchdog, stderr_tail=self.stderr_tail())

    def _run(self, what: str, call: Callable[[], Awaitable[T]], timeout: float | None = None) -> T:
        if self._portal is None or self._session is None or self._closed:
            raise DriverError("SdkDriver is not running")
        cancel.check()
        future: Future[T] = self._portal.start_task_soon(self._guarded, what, call, timeout)
        try:
            return future.result()
        except BaseException as exc:
            future.cancel()
            failure = self._map_failure(exc, what, timeout)
        if isinstance(failure, DriverError) and self.on_failure is not None:
            self.on_failure(failure)
        raise failure from None

    def _map_failure(self, exc: BaseException, what: str, timeout: float | None = None) -> BaseException:
        """The typed error for an SDK failure; anything else (Ctrl-C, a JSON-RPC error) passes through."""
        inner = _unwrap(exc)
        if isinstance(inner, DriverError | TargetError):
            return inner
        if isinstance(inner, MCPError):
            if inner.code == CONNECTION_CLOSED:
                self._await_exit(2.0)
                if self._sink is not None:
                    self._sink.settle(1.0 if self.is_alive() else _DRAIN_WITHIN)
                return ServerExited(None, stderr_tail=self.stderr_tail())
            if inner.code == REQUEST_TIMEOUT:
                return ServerTimeout(what, self.timeout if timeout is None else timeout,
                                     stderr_tail=self.stderr_tail())
            return inner
        if isinstance(inner, ValidationError):
            return ProtocolViolation(
                f"{what}: the server's answer does not validate against the SDK's types "
                f"({inner.error_count()} errors: {inner.errors()[0]['msg']})",
                stderr_tail=self.stderr_tail(),
            )
        if isinstance(inner, OSError) and what == "initialize":
            return TargetError(f"cannot start {' '.join(self.command)}: {inner.strerror or inner}")
        return inner

    @property
    def session(self) -> ClientSession:
        if self._session is None:
            raise DriverError("SdkDriver is not running")
        return self._session

    def list_tools(self) -> ListToolsResult:
        session = self.session
        self._sent("tools/list", None)
        return self._run("tools/list", session.list_tools)

    def call_tool(self, name: str, arguments: dict[str, Any] | None, timeout: float | None = None
                  ) -> CallToolResult:
        """One tools/call; `timeout` (seconds) replaces the driver's for this call only, as the wire driver's
        does: a call meant to time out gets a short one without timing the handshake before it."""
        session = self.session
        sent = self.renamer.arguments(arguments)
        self._sent("tools/call", {"name": name, **({} if sent is None else {"arguments": sent})})
        return self._run("tools/call", lambda: session.call_tool(name, sent, read_timeout_seconds=timeout),
                         timeout)

    def _sent(self, method: str, params: dict[str, Any] | None) -> None:
        """Log the request as its wire frame before it goes: a check's failing example is replayed from it."""
        self._requests += 1
        SENT.wrote(self._serial, method, params, self._requests)

    def stderr_bytes(self) -> bytes:
        return self._sink.data() if self._sink is not None else b""

    def stderr_tail(self, limit: int = _STDERR_TAIL) -> str:
        return self._sink.tail(limit) if self._sink is not None else ""

    def is_alive(self) -> bool:
        return self.pid is not None and self.pid in process.group_members(self.pid)

    def _await_exit(self, timeout: float) -> None:
        """A closed pipe comes just before the exit itself; on a loaded machine the gap is visible."""
        deadline = time.monotonic() + timeout
        while self.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)


def _unwrap(exc: BaseException) -> BaseException:
    """The one meaningful exception inside (possibly nested) exception groups from anyio task groups."""
    while isinstance(exc, BaseExceptionGroup):
        interesting = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        if not interesting:
            return exc
        exc = interesting[0]
    return exc
