"""The SDK driver's stdio transport: the official client session's two streams over a server's pipes, as the
SDK's `stdio_client` makes them, with the wire driver's frame limit. The SDK's own reader holds a stdout line
without bound, so a server writing without a newline grew the harness until the call timed out."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import TextIO

import anyio
import mcp_types as types
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from conformance.drivers.errors import FrameTooLarge

STOP_GRACE = 2.0
"""Seconds a server has to exit after its stdin closes, then after SIGTERM (the SDK's own shutdown times)."""

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]


def _parse(line: bytes) -> SessionMessage | Exception:
    """One stdout line as the session takes it: a message, or the parse error as a value (as the SDK does)."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


@asynccontextmanager
async def bounded_stdio(
    command: Sequence[str], env: Mapping[str, str], errlog: TextIO, max_frame: int, *, cwd: str | None = None
) -> AsyncIterator[tuple[Streams, int]]:
    """Start `command` in its own process group, in `cwd`; yield the session's streams and the server's pid. A
    line longer than `max_frame` is sent to the session as a `FrameTooLarge` and reading stops."""
    proc = await anyio.open_process(list(command), env=dict(env), stderr=errlog, start_new_session=True,
                                    cwd=cwd)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def stdout_reader() -> None:
        assert proc.stdout is not None, "the harness could not read the server's stdout: its pipe is not open"
        pending: list[bytes] = []
        size = 0
        async with read_writer:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for chunk in proc.stdout:
                    start = 0
                    while (end := chunk.find(b"\n", start)) >= 0:
                        if size + end - start > max_frame:
                            await read_writer.send(FrameTooLarge(max_frame))
                            return
                        line = b"".join([*pending, chunk[start:end]])
                        pending.clear()
                        size = 0
                        start = end + 1
                        await read_writer.send(_parse(line))
                    if start < len(chunk):
                        pending.append(chunk[start:])
                        size += len(chunk) - start
                    if size > max_frame:
                        await read_writer.send(FrameTooLarge(max_frame))
                        return

    async def stdin_writer() -> None:
        assert proc.stdin is not None, (
            "the harness could not write to the server's stdin: its pipe is not open")
        try:
            async with write_reader:
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await proc.stdin.send((data + "\n").encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(stdout_reader)
        tasks.start_soon(stdin_writer)
        try:
            yield (read_stream, write_stream), proc.pid
        finally:
            with anyio.CancelScope(shield=True):
                await _stop(proc)
            tasks.cancel_scope.cancel()


async def _stop(proc: Process) -> None:
    """Close stdin, wait, SIGTERM the group, wait (the caller kills what is left)."""
    assert proc.stdin is not None and proc.stdout is not None, (
        "the harness could not stop the server: its stdin or stdout pipe is not open")
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await proc.stdin.aclose()
    if not await _exited(proc, STOP_GRACE):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGTERM)
        await _exited(proc, STOP_GRACE)
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await proc.stdout.aclose()
    # asyncio's subprocess transport stays open (and complains once the loop is gone) until closed; nothing
    # public reaches it, so the same attribute walk as the SDK's own transport.
    transport = getattr(getattr(proc, "_process", None), "_transport", None)
    close = getattr(transport, "close", None)
    if callable(close):
        with contextlib.suppress(PermissionError):
            close()


async def _exited(proc: Process, timeout: float) -> bool:
    """Polls the exit status (not `wait()`, which also waits for a pipe a grandchild may hold open)."""
    with anyio.move_on_after(timeout):
        while proc.returncode is None:
            await anyio.sleep(0.01)
    return proc.returncode is not None
