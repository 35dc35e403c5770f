"""The adversarial caller: raw newline-delimited JSON-RPC over a server's stdin/stdout.

It sends whatever it is given (any params, any method, malformed frames) and reports every way a
server can misbehave as a typed `DriverError`. stdout is read in the calling thread (no thread
handoff per call: thousands of calls run against one process). stderr never stays unread for long:
a background thread drains it whenever no call is running; during a call the calling thread collects
it when the response arrives, or watches it too as soon as an answer takes longer than 20 ms (a
server blocked on a full stderr pipe). So a server writing megabytes of stderr is never stuck, and
the stderr bytes written during a call are attributed to that call.

What a server writes is bounded here, not by the server: a stdout frame longer than `max_frame` is a
`FrameTooLarge` (reading stops, the server is ended), and stderr is kept as its head and tail with the rest
counted (`capture.HeadTail`), per process and per call.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import math
import os
import re
import select
import subprocess
import sys
import termios
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Final, TypeAlias

from conformance.core.arguments_map import Renamer
from conformance.core.eras import (
    LATEST_HANDSHAKE,
    LEGACY,
    STATELESS,
    STATELESS_REVISION,
    Era,
    RefusedOffer,
    offered_next,
)
from conformance.core.js import js_truthy
from conformance.core.jsontypes import JSON, OMIT, Omitted
from conformance.core.protocol import CLIENT_INFO, PROTOCOL_VERSION
from conformance.core.served import SERVED_BYTES, Unreadable, read_served, status_block
from conformance.drivers import cancel, process
from conformance.drivers.capture import DEFAULT_MAX_FRAME, DEFAULT_STDERR_LIMIT, HeadTail
from conformance.drivers.ending import STDIN_END, pace_after, paced_end
from conformance.drivers.errors import (
    DriverError,
    FrameTooLarge,
    ProtocolViolation,
    ServerExited,
    ServerTimeout,
    WrongId,
)
from conformance.drivers.late_banner import STARTUP_LATE, learnable, startup_part
from conformance.drivers.lateness import Lateness
from conformance.drivers.lifecycle import Managed
from conformance.drivers.stray_lag import StrayLag
from conformance.drivers.transcript import Transcript, decode

NOT_JSON_RPC: Final = "stdout line is not"
"""How a violation of the stdout channel begins (a line that is not JSON, or not JSON-RPC 2.0)."""
_READ_CHUNK: Final = 1 << 16
_STDERR_TAIL: Final = 2000
_UNSOLICITED_KEPT: Final = 5
RequestId: TypeAlias = int | str
"""A request's id as sent: the driver's next number, or a caller's string (LOOP-A's and compare's probes)."""
STRAY_SKIPPED: Final = 64
"""Stray lines skipped while one answer is awaited; past this the line fails the call (a flood, not a log)."""
STRAY_KEPT: Final = 20
_POLL_IN: Final = select.POLLIN | select.POLLHUP | select.POLLERR
_FIONREAD_BUF: Final = bytes(4)
_IDLE: Final = 0.02
_IDLE_MS: Final = 20
_FIRST_WAIT_MS: Final = 20
SETTLE_QUIET: Final = 0.1
"""After an answer, how long stderr may stay silent before a call whose box is not complete is taken as done
(seconds): the wait for the first late byte, and between late pieces."""
SETTLE_LIMIT: Final = 1.0
"""The longest a call waits for its late stderr in all (seconds; never past the call's own deadline)."""
SETTLE_OPEN_LIMIT: Final = 5.0
"""The longest a call whose box is open (begun, not closed) waits for its end once its command's boxes were
seen completing late (seconds; never past the call's deadline): twice the longest lag learned (`box_bound`),
`SETTLE_LIMIT` at least. A relay slowed by load past one second cut a revision box at its second's end; a box
seen that late once, the next is waited for. The wait for a box's first bytes stays `SETTLE_LIMIT` at most
(a server writing no box pays it on each of its first calls)."""
SETTLE_BYTES: Final = 1 << 20
"""A call whose stderr already holds this many bytes is not waited for (a flood ends no box)."""
SETTLE_MISSES: Final = 3
"""Waits that ended with no box completed before a server is taken to write no box for its calls: unless a box
of it was seen arriving whole after its answer (a relay's), it is then waited for only to the end of a line
left open, or of a box left open once one of its boxes was seen split around its answer. A box split so (its
top in the pipe at the answer, a direct server's large write) is no relay's: held-out-multi-13's
fork-session-tools, muting its boxes after 30 thoughts, once split one and then waited a quiet period on each
of its thousands of later calls."""
_TOPS: Final = tuple(corner.encode() for corner in "┌╔╭┏")
"""A box's top-left corner in the original's light style and the styles forks draw with (double, rounded,
heavy): a fork's box is waited for as the original's is."""
_BORDERS: Final = tuple(line.encode() for line in "─═━")
"""The lines a box's borders are drawn with: a chunk holding one is a box arriving."""
_BOTTOMS: Final = tuple(corner.encode() for corner in "└╚╰┗")
_RUN: Final = re.compile(rb"([!-/:-@\[-`{-~])\1{2,}")
"""Three of one ASCII mark in a row: a chunk of a box drawn in ASCII ("+-----+") arriving."""
_RULE: Final = re.compile(r"^[ \t]*([^\w\s])([^\w\s])\2{2,}([^\w\s])[ \t]*$", re.MULTILINE)
"""A line that is a box's rule in any style: an edge, one mark repeated, an edge ("+----+", "┌────┐",
"*====*")."""

def _count(data: bytes, marks: tuple[bytes, ...]) -> int:
    return sum(data.count(mark) for mark in marks)


_max_frame = DEFAULT_MAX_FRAME


def set_max_frame(limit: int) -> None:
    """The frame limit of every driver made after this in this process (`--max-frame` of the commands)."""
    global _max_frame
    _max_frame = limit


def max_frame() -> int:
    return _max_frame


_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_ASCII_ENCODER: Final = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def encode_message(message: JSON) -> bytes:
    """One frame: compact JSON and a newline; strict JSON (no NaN/Infinity)."""
    try:
        return _ENCODER.encode(message).encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        # Lone surrogates cannot be UTF-8; \u escapes carry the same code units as valid JSON.
        return _ASCII_ENCODER.encode(message).encode("ascii") + b"\n"


BEYOND_LIMITS: Final = "stdout line is past what the harness reads"
"""How a stdout line past the reader's limits (`core/served.py`: nesting, values, size) is said: a limit of
the harness, the target's error, never CMP-4's "nothing but JSON-RPC on stdout" (a deep line may be one)."""


def unreadable_line(failure: Unreadable, line: bytes, stderr_tail: str = "") -> ProtocolViolation:
    """The driver's failure for a stdout line the reader refused: not JSON (`NOT_JSON_RPC`, CMP-4's words),
    or past one of its limits (`BEYOND_LIMITS`)."""
    if failure.beyond:
        words = f"{BEYOND_LIMITS} ({failure.reason})"
    else:
        words = f"{NOT_JSON_RPC} JSON, so not a JSON-RPC message ({_where_json_breaks(failure.reason)})"
    return ProtocolViolation(f"{words}: {decode(line[:200])!r}", line=line[:200], stderr_tail=stderr_tail)


_PARSER_AT: Final = re.compile(r"\(char (\d+)\)")


def _where_json_breaks(reason: str) -> str:
    """Python's JSON parser words ("Expecting ',' delimiter: line 1 column 4 (char 3)") as the harness says
    them, where the line stops being JSON (wild13's axefield-ts: a pino log line); its own words (not UTF-8)
    as they are."""
    reason = reason.removeprefix("is not JSON: ")
    at = _PARSER_AT.search(reason)
    if at is None:
        return reason
    return f"it stops being JSON at its character {int(at.group(1)) + 1}"


def call_arguments(request: JSON | bytes | None, tool: str | None = None) -> dict[str, JSON]:
    """A tools/call request's arguments as sent (of `tool` only, when named); empty for anything else."""
    params = request.get("params") if isinstance(request, dict) else None
    if not isinstance(params, dict) or (tool is not None and params.get("name") != tool):
        return {}
    arguments = params.get("arguments")
    return arguments if isinstance(arguments, dict) else {}


@dataclass(slots=True)
class Exchange:
    """One request and its response, with the stderr bytes the server wrote while answering it."""

    method: str
    request: JSON | bytes
    response: dict[str, JSON]
    stderr: bytes
    t_sent: float
    t_received: float
    transcript_mark: int | None = None
    stderr_dropped: int = 0
    """Bytes of stderr written during the call but not kept in `stderr` (a mark there says how many)."""
    previous_call: JSON | bytes | None = None
    """The tools/call request the process was sent before this one: what a box written late belongs to."""

    @property
    def result(self) -> dict[str, JSON] | None:
        result = self.response.get("result")
        return result if isinstance(result, dict) else None

    @property
    def error(self) -> dict[str, JSON] | None:
        error = self.response.get("error")
        return error if isinstance(error, dict) else None

    @property
    def is_error(self) -> bool:
        result = self.result
        return result is not None and js_truthy(result.get("isError"))

    @property
    def text(self) -> str | None:
        """The answer's text: content[0]'s, or a later block's holding the status where the first reads as
        no JSON (`status_block`: a summary line put first)."""
        result = self.result
        if result is None:
            return None
        content = result.get("content")
        if not isinstance(content, list) or not content or not isinstance(content[0], dict):
            return None
        texts = [block.get("text") if isinstance(block, dict) else None for block in content[:8]]
        text = texts[status_block(texts)]
        return text if isinstance(text, str) else None

    @property
    def elapsed(self) -> float:
        return self.t_received - self.t_sent


class WireDriver(Managed):
    """Newline-delimited JSON-RPC client over a real pipe; a context manager that always ends the server.

    One calling thread at a time: calls are sequential, as the records' state model assumes.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout: float = 10.0,
        transcript: Transcript | None = None,
        stderr_limit: int = DEFAULT_STDERR_LIMIT,
        max_frame: int | None = None,
        on_failure: Callable[[DriverError], None] | None = None,
        era: Era = LEGACY,
        renames: Mapping[str, str] | None = None,
        lateness: Lateness | None = None,
        cwd: str | None = None,
        own_home: bool = False,
    ) -> None:
        self.command = tuple(command)
        self.cwd = cwd
        """The folder the process starts in, kept (a folder made for it when None: `workfolder`)."""
        self.own_home = own_home
        """Whether its HOME is a folder made for it too (a tool of unknown effect), not the target's."""
        self.lateness = lateness if lateness is not None else Lateness()
        """What the run learned about its commands' late stderr (`Target.lateness`), shared by the run's
        drivers; a driver made alone learns from its own process only."""
        self.renamer = Renamer(renames) if renames else None
        self.started_at: float | None = None
        """When the process was started (monotonic): what a stray line's time is counted from."""
        """The port's spelling of the original's argument names (`--arguments-map`): applied to every frame
        written, so each call the suite sends reaches the server as it spells them."""
        self.era = era
        """The client this driver is: how `connect` opens, and the `_meta` a stateless client sends."""
        self.negotiated: str | None = None
        """The revision `connect` settled on: the initialize answer's, or 2026-07-28 served statelessly."""
        self.refused_offer: RefusedOffer | None = None
        """The version this process's first initialize offered and was refused, when another was accepted."""
        self.discover_result: dict[str, JSON] | None = None
        self.stateless = False
        self.on_failure = on_failure
        """Told of every failure of a request (death, hang, protocol violation) before it is raised; it may
        raise instead (the suite escalates to `TargetFailed`). A timed-out read of unsolicited messages
        (`read_frame`) is not a failure: silence is what such a read expects."""
        self.env = dict(env or {})
        self.timeout = timeout
        self.transcript = transcript
        self._stderr_limit = stderr_limit
        self.max_frame = max_frame if max_frame is not None else _max_frame
        self.requests_sent = 0
        self.pace = 0.0
        """The longest round trip of a request after the first on this process (seconds; 0.0: none yet): how
        long it takes, in this run, to do what it is asked (`drivers/ending.py`)."""
        self.initialize_result: dict[str, JSON] | None = None
        self.unsolicited: list[dict[str, JSON]] = []
        """The first few requests and notifications the server sent of its own, skipped while awaiting a
        response (LOOP-A's check reads them: the original sends none)."""
        self.stray_lines: list[bytes] = []
        """The first few stdout lines that were not JSON-RPC, skipped while awaiting a response (CMP-4's
        finding, said from the transcripts by gate/stdout_hygiene); `strays_seen` counts them all."""
        self.strays_seen = 0
        self.first_stray: str | None = None
        """The first stray line's failure as it would have been raised (the preflight's stop says it)."""
        self._proc: subprocess.Popen[bytes] | None = None
        self._next_id = 1
        self._abandoned: dict[RequestId, float | None] = {}
        """Requests given up on, each with when the stray line whose grace gave up on it was read (None: given
        up on otherwise): a late answer to one is skipped, and one a stray line's grace gave up on teaches the
        lag it came by."""
        self._lines: deque[bytes] = deque()
        self._partial: list[bytes] = []
        self._partial_size = 0
        self._stdin_fd = -1
        self._stdout_fd = -1
        self._stderr_fd = -1
        self._stdin_poll = select.poll()
        self._stdout_poll = select.poll()
        self._both_poll = select.poll()
        self._stderr_store: HeadTail | None = None
        self._call_stderr: HeadTail | None = None
        self._stderr_lock = threading.Lock()
        self._stderr_stop = False
        self._stderr_eof = False
        self._stderr_thread: threading.Thread | None = None
        self._stderr_before = b""
        self._closed = False
        self._in_call = False
        self._last_call_end = 0.0
        self._previous_call: JSON | bytes | None = None
        self.stderr_late = 0
        """Calls whose box was completed by stderr arriving after their answer (a relay, a wrapper, an async
        logger)."""
        self.stderr_box_waits = 0
        """Calls waited for until their box was complete or stderr stayed quiet (a wait to the end of a line
        left open, once a server is found to write no box, is not one): a count a test can hold steady."""
        self.stderr_waited = 0.0
        """Seconds spent in all waiting for stderr that arrives after its call's answer."""
        self.stderr_lag = 0.0
        """The longest a call's box was seen completing after its answer (seconds)."""
        self._settle_misses = 0
        self._late_whole = 0
        """Calls whose box arrived whole after their answer (none of it in the pipe then: a relay's)."""
        self._split = False
        """Whether a box of this process was seen begun at its call's answer and completed after it."""
        self._lines_lag = 0.0
        """The latest a call owing no box was seen getting its last stderr byte after its answer (seconds)."""
        self._owed_since = 0.0
        """When (monotonic) the last call owing a box was answered, while its box's wait ended with the box
        not complete: its box closing between calls teaches its lag (`_box_completed_late`); 0.0: none."""
        self._writing = False
        """Whether the last call's stderr ended inside a write begun before its answer: a flood
        (`SETTLE_BYTES` or more), or a box open at its answer that its wait did not see closed (npm:0.6.2
        rendering a 1 MiB thought on a loaded machine). What follows is the rest of that write, not a late
        line teaching that every call's stderr comes late."""
        self._learn_after = False
        """Whether stderr arriving between calls (soon after the last answer) is that call's, late: after a
        tool call, or after an initialize answered with nothing on stderr (the original's banner is there);
        not once a frame was written raw (`send_raw`: a cancelled call's box is that frame's, read with its
        answer), nor after a flood."""
        self.strays: StrayLag = self.lateness.strays
        """How long answers of this command follow its stray stdout lines, learned by the run's drivers: the
        grace a stray line gets (`StrayLag.grace`)."""
        self.stderr_late_unboxed = self.lateness.known(self.command)
        """Whether this process's command was seen writing stderr after a call's answer outside any box wait
        (then every call waits for its stderr, box or not, while `Lateness.known` holds: `_settle_lines`)."""
        self._startup_due = False
        """Whether the start-up stderr of a process this driver started is still to be read whole after the
        first answer (`_settle_startup`)."""
        self._startup_owed_until = 0.0
        """While its start-up wait ended with nothing on stderr: until when (monotonic) its first stderr bytes
        may still be its banner, late (`_late_startup`); 0.0: not owed."""
        self._first_answer_at = 0.0
        self.late_banners = 0
        """Start-ups whose stderr (the banner) was found leading a later call's stderr and taken out of it: a
        count a test can hold steady."""
        self.stderr_line_waits = 0
        """Calls owing no box waited for until their stderr stayed quiet (`_settle_lines`): a count a test can
        hold steady, as `stderr_box_waits`."""

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> None:
        if self._proc is not None:
            raise RuntimeError("WireDriver already started")
        self._attach(process.spawn(self.command, env=self.env, cwd=self.cwd, own_home=self.own_home))
        self._startup_due = True

    def adopt(
        self, proc: subprocess.Popen[bytes], *, initialize_result: dict[str, JSON] | None,
        stderr_before: bytes = b"",
    ) -> None:
        """Drive a process another driver started (and counted), with nothing unread on its stdout: a process
        one check is done with serves another instead of a new one being started. `stderr_before`: what the
        other driver read of its stderr (handed on again by `release`)."""
        if self._proc is not None:
            raise RuntimeError("WireDriver already started")
        self._attach(proc)
        self.initialize_result = initialize_result
        self._stderr_before = stderr_before
        if self.transcript is not None:
            self.transcript.note(f"pid {proc.pid} taken over, already started")

    def release(self) -> tuple[subprocess.Popen[bytes], bytes] | None:
        """Its running process, for another driver to take over (the session's spare, once the checks that
        end a process begin), with the stderr read from the process's start (what an earlier driver read,
        then this one's head and tail); None when it ended or has unread stdout (it is then left to `close`).
        From then on this driver neither reads nor ends it."""
        proc = self._proc
        if proc is None or self._closed or proc.poll() is not None or self._lines or self._partial:
            return None
        if select.select([self._stdout_fd], [], [], 0)[0]:
            return None
        self._stderr_stop = True
        if self._stderr_thread is not None:
            self._stderr_thread.join(1.0)
        with self._stderr_lock:
            self._drain_stderr_locked()
            said = self._stderr_before + self._stderr.kept()
            self._stderr_fd = -1
        for fd in (self._stdin_fd, self._stdout_fd):
            os.set_blocking(fd, True)
        assert proc.stderr is not None, "the harness could not read the server's stderr: its pipe is not open"
        os.set_blocking(proc.stderr.fileno(), True)
        self._closed = True
        if self.transcript is not None:
            self.transcript.note(f"pid {proc.pid} handed over, still running")
        return proc, said

    def _attach(self, proc: subprocess.Popen[bytes]) -> None:
        self._proc = proc
        self.started_at = time.monotonic()
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None, (
            "the harness could not open the server's stdin, stdout and stderr pipes")
        self._stdin_fd = proc.stdin.fileno()
        self._stdout_fd = proc.stdout.fileno()
        self._stderr_fd = proc.stderr.fileno()
        for fd in (self._stdin_fd, self._stdout_fd, self._stderr_fd):
            os.set_blocking(fd, False)
        self._stdin_poll.register(self._stdin_fd, select.POLLOUT | select.POLLERR | select.POLLHUP)
        self._stdout_poll.register(self._stdout_fd, _POLL_IN)
        self._both_poll.register(self._stdout_fd, _POLL_IN)
        self._both_poll.register(self._stderr_fd, _POLL_IN)
        self._stderr_thread = threading.Thread(
            target=self._stderr_loop, name=f"stderr-{proc.pid}", daemon=True
        )
        self._stderr_thread.start()
        if self.transcript is not None:
            self.transcript.note(f"started pid {proc.pid}: {' '.join(self.command)}")

    def close(self) -> None:
        """End the server's whole process group (idempotent; safe on every exit path)."""
        proc = self._proc
        if proc is None or self._closed:
            return
        self._closed = True
        try:
            process.terminate(proc)
        finally:
            self._stderr_stop = True
            if self._stderr_thread is not None:
                self._stderr_thread.join(1.0)
            with self._stderr_lock:
                self._drain_stderr_locked()
                self._stderr_fd = -1
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
            if self.transcript is not None:
                self.transcript.note(f"closed pid {proc.pid}, exit status {proc.returncode}")

    @property
    def pid(self) -> int:
        if self._proc is None:
            raise RuntimeError("WireDriver not started")
        return self._proc.pid

    @property
    def _transcript_pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    @property
    def returncode(self) -> int | None:
        return None if self._proc is None else self._proc.poll()

    def is_alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def stderr_ended(self) -> bool:
        """Whether a read of stderr met its end: every writer closed it (the process ended, its exit status
        maybe not reaped yet)."""
        return self._stderr_eof

    def end_input(self, timeout: float) -> int | None:
        """Close the server's stdin (a host going away) and wait for its exit status; None if it stays up."""
        self._require_started()
        assert self._proc is not None and self._proc.stdin is not None, (
            "the harness could not close the server's stdin: no process or pipe")
        with contextlib.suppress(OSError):
            self._proc.stdin.close()
        try:
            return self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def end_input_paced(self) -> tuple[int | None, float]:
        """`end_input` within the bound this process's pace and the run's learning give it
        (`drivers/ending.py`: a whole `end_bound`, or `known_bound` once a process of its command outlived one
        after stdin closed), and what the wait teaches the run: the exit status and the seconds waited."""
        return paced_end(self.lateness.ends, self.command, STDIN_END, self.timeout, self.pace, self.end_input)

    # -- stderr ------------------------------------------------------------------------------------

    def _stderr_loop(self) -> None:
        """Drain stderr whenever the caller is not busy with calls.

        While calls are running, nobody waits on the stderr pipe: a server's stderr write then wakes no
        thread (as cheap as writing to /dev/null), and the caller collects the bytes when the response
        arrives. Waiting on it would cost a wakeup and a GIL handoff per call.
        """
        poller = select.poll()
        poller.register(self._stderr_fd, _POLL_IN)
        while not self._stderr_stop:
            if self._in_call or time.monotonic() - self._last_call_end < _IDLE:
                time.sleep(_IDLE)
                continue
            if not poller.poll(_IDLE_MS) or self._in_call:
                continue
            if not self._read_stderr_now():
                return

    def _read_stderr_now(self) -> bool:
        """Read one chunk of stderr if there is one; False once stderr is at its end (or closed)."""
        with self._stderr_lock:
            return self._stderr_fd >= 0 and self._read_chunk_locked()

    def _read_chunk_locked(self) -> bool:
        """One read of stderr into what is kept (lock held): False once stderr ended or cannot be read, True
        when it may go on (nothing there yet counts as going on)."""
        try:
            chunk = os.read(self._stderr_fd, _READ_CHUNK)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not chunk:
            self._stderr_eof = True
            return False
        self._append_stderr(chunk)
        return True

    @property
    def stderr_limit(self) -> int:
        """Bytes of stderr kept as the tail (the head is a sixteenth): per process and per call."""
        return self._stderr_limit

    @stderr_limit.setter
    def stderr_limit(self, limit: int) -> None:
        """A new limit (a handed-over process becomes a session's): the tail kept from now on is this long."""
        self._stderr_limit = limit
        if self._stderr_store is not None:
            self._stderr_store.tail_limit = max(limit, 1)

    @property
    def _stderr(self) -> HeadTail:
        """The process's stderr, head and tail (made on first use: `stderr_limit` may be set after init)."""
        if self._stderr_store is None:
            self._stderr_store = HeadTail(self.stderr_limit)
        return self._stderr_store

    def _append_stderr(self, chunk: bytes) -> None:
        if self._owed_since and self._call_stderr is None and _count(chunk, _BOTTOMS):
            self._box_completed_late(time.monotonic() - self._owed_since)
        if self._learn_after and self._call_stderr is None and (
                time.monotonic() - self._last_call_end <= SETTLE_LIMIT):
            self._seen_late()  # after a call's answer, before the next call: that call's, late
            self.lateness.note_late(self.command)
        self._stderr.append(chunk)
        if self._call_stderr is not None:
            self._call_stderr.append(chunk)
        if self.transcript is not None:
            self.transcript.record("stderr", chunk, pid=self._transcript_pid)

    def _box_completed_late(self, lag: float) -> None:
        """A box a call's wait gave up on was closed `lag` seconds after that call's answer (read between
        calls): its lag is learned, within `SETTLE_OPEN_LIMIT`, so the next box of the command is waited for
        as long (`box_bound`), not cut again."""
        self._owed_since = 0.0
        if lag <= SETTLE_OPEN_LIMIT:
            self.stderr_lag = max(self.stderr_lag, lag)
            self.lateness.note_lag(self.command, lag)

    def _drain_stderr_locked(self) -> int:
        """Read what is pending on the stderr pipe right now (bounded); returns the absolute end offset.

        Called when a response arrives: a server that writes stderr before its response (the TS
        original does, synchronously) has then already put those bytes in the pipe. Bounded by what
        FIONREAD reports, so a server flooding stderr cannot keep the caller here.
        """
        fd = self._stderr_fd
        if fd >= 0:
            try:
                pending = int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, _FIONREAD_BUF), sys.byteorder)
                while pending > 0:
                    chunk = os.read(fd, pending)
                    if not chunk:
                        break
                    pending -= len(chunk)
                    self._append_stderr(chunk)
            except OSError:
                pass
        return self._stderr.total

    def _stderr_mark(self) -> int:
        with self._stderr_lock:
            return self._drain_stderr_locked()

    def _call_stderr_now(self, due: int = 0, deadline: float = math.inf, tool_call: bool = False) -> HeadTail:
        """The stderr bytes of the call in progress, read until its `due` boxes are complete; the call's
        capture ends.

        One read usually empties the pipe (a short read means nothing more was pending), which
        saves the FIONREAD syscall on the per-call path; a full read falls back to the bounded drain.
        A server writing its box before its answer (the original) is done there; one whose stderr reaches
        the pipe after its answer (a relay, `docker run -i`, a shell wrapper) is waited for (`_settle`).
        """
        with self._stderr_lock:
            fd = self._stderr_fd
            if fd >= 0:
                try:
                    chunk = os.read(fd, _READ_CHUNK)
                except OSError:
                    chunk = b""
                if chunk:
                    self._append_stderr(chunk)
                    if len(chunk) == _READ_CHUNK:
                        self._drain_stderr_locked()
            if self._startup_due:
                self._startup_due = False
                self._settle_startup(deadline)
            captured = self._call_stderr
            if captured is not None:
                captured = self._late_startup(captured, due, deadline,
                                              lambda now: self._settle_call(now, due, deadline, tool_call))
            self._writing = self._writing or (captured is not None and (
                bool(captured.dropped) or captured.total >= SETTLE_BYTES))
            self._call_stderr = None
            return captured if captured is not None else HeadTail(self.stderr_limit)

    def _settle_call(self, captured: HeadTail, due: int, deadline: float, tool_call: bool) -> None:
        """The call's own wait for its stderr (lock held): its `due` boxes (`_settle`), else its lines once
        its command's stderr is known to come late, or while it is probed on a tool call (`_settle_lines`)."""
        if due:
            self._settle(captured, due, deadline)
        elif self.lateness.known(self.command) or (tool_call and self.lateness.probing(self.command)):
            self._settle_lines(captured, deadline)

    def _settle(self, captured: HeadTail, due: int, deadline: float) -> None:
        """Read a call's stderr (lock held) until its `due` boxes are complete (`settle`), never past the
        call's deadline nor `box_bound` of the lag learned (a box cut by the bound and closed later teaches
        its lag: `_box_completed_late`). A server found to write no box (`SETTLE_MISSES` waits ending with
        none completed) is then waited for only while a line of its is open (a box, once one of its boxes was
        split around its answer), unless a box of it was seen arriving whole after its answer (a relay's): a
        conforming server costs nothing here, a relay costs its lag, a server writing something else (no box,
        a box never closed, border characters in echoed text) a few quiet periods per process."""
        if captured.dropped or self._stderr_fd < 0 or boxes_complete(captured.kept(), due):
            return
        boxless = self._settle_misses >= SETTLE_MISSES and not self._late_whole
        open_now = box_open if self._split else line_open
        held = captured.last(SETTLE_BYTES)
        if boxless and not open_now(held):
            return
        lag = max(self.stderr_lag, self.lateness.lag(self.command))
        bound = box_bound(lag)
        begun = box_open(held) or (bool(held) and not held.strip())  # the call's box under way at its answer
        poller = select.poll()
        poller.register(self._stderr_fd, _POLL_IN)
        started = time.monotonic()
        # The quiet period follows the longest a box was seen completing late (never the whole of a wait
        # that ended without one, or each such wait would double the next), on this process
        # and the run's other processes of its command, their banners included: a fresh process's first box
        # through a relay slowed by load came after a fixed quiet period and was read as the next call's).
        quiet = 0.0 if boxless else min(SETTLE_LIMIT, max(SETTLE_QUIET, 2 * lag))
        late = settle(self._reader(poller), lambda: b"" if captured.dropped else captured.kept(), due, quiet,
                      min(bound, deadline - started), open_now if boxless else box_open)
        waited = time.monotonic() - started
        self.stderr_waited += waited
        if late:
            self.stderr_late += 1
            if begun:
                self._split = True
            else:
                self._late_whole += 1
            self.stderr_lag = max(self.stderr_lag, waited)
            self.lateness.note_lag(self.command, waited)
        else:
            if begun and box_open(captured.last(SETTLE_BYTES)):
                self._writing = True  # a box begun before its answer and not closed yet: its rest is its own
            elif captured.total < SETTLE_BYTES and not boxes_complete(captured.kept(), due):
                self._owed_since = started
            if not boxless:
                self._settle_misses += 1
        if not boxless:
            self.stderr_box_waits += 1

    def _settle_startup(self, deadline: float) -> None:
        """After the first answer of a process it started (lock held): read its start-up stderr (the banner)
        until its last line is ended, and wait for its first bytes when none came yet, unless the run found
        its command's processes writing nothing at start-up (`Lateness.waits_for_startup`); one
        `SETTLE_LIMIT` at most, never past the call's deadline. Through a relay the banner reaches the pipe
        after initialize is answered, split anywhere; it joins that answer's stderr, not the first call's
        (a worker of `--jobs`, given no preflight process, called at once and read it beside a box)."""
        if self._stderr_fd < 0 or self._stderr_eof:
            return
        silent = not self._stderr.total
        first = startup_first(self.lateness, self.command)
        if silent and not first:
            return
        poller = select.poll()
        poller.register(self._stderr_fd, _POLL_IN)
        started = time.monotonic()
        arrived = settle_startup(self._reader(poller), lambda: self._stderr.last(SETTLE_BYTES), first,
                                 min(SETTLE_LIMIT, deadline - started))
        waited = time.monotonic() - started
        self.stderr_waited += waited
        if arrived:
            self._seen_late()
            self.lateness.note_startup(self.command, arrived=True)
            self.lateness.note_lag(self.command, waited)
        elif silent:
            self.lateness.note_startup(self.command, arrived=False)
            self._startup_owed_until, self._first_answer_at = started + STARTUP_LATE, started
        if banner := learnable(self._stderr.kept()) if not self._stderr.dropped else None:
            self.lateness.note_banner(self.command, banner)

    def _late_startup(self, captured: HeadTail, due: int, deadline: float,
                      settle: Callable[[HeadTail], None]) -> HeadTail:
        """A call's stderr (lock held), its late banner taken out (`_banner_taken`) around the call's own wait
        for the rest (`settle`): first as the answer left it (waiting for its first bytes, never past
        `deadline`), then, when those are still owed, as the bytes that came while `settle` waited left it
        (no wait of its own). Returns the call's stderr."""
        at_answer = captured.total
        for before_settling in (True, False):
            if self._startup_owed_until:
                captured = self._banner_taken(captured, due, deadline if before_settling else 0.0, at_answer)
            if before_settling:
                settle(captured)
        return captured

    def _banner_taken(self, captured: HeadTail, due: int, deadline: float, at_answer: int) -> HeadTail:
        """A call's stderr (lock held) on a process whose start-up wait ended with nothing, within
        `STARTUP_LATE` of its first answer: its first stderr bytes may be its banner, late through a relay,
        with the call's own behind it. A call owing a box with nothing in the pipe at its answer (`at_answer`
        bytes were) waits for them, never past `deadline`, when the run saw a process of its command write a
        banner (`Lateness.banner`: a server writing none, or no box, costs nothing here). The banner they
        begin with (`startup_part`) is taken out of the call's stderr, as the start-up's, and its lag learned:
        the command's later processes wait that long for their banner (`startup_first`). Returns the call's
        stderr."""
        if time.monotonic() > self._startup_owed_until or captured.dropped:
            self._startup_owed_until = 0.0
            return captured
        if self._stderr.total > captured.total:  # its first bytes came between calls: no call's
            self._startup_owed_until = 0.0
            return captured
        banner = self.lateness.banner(self.command)
        if (banner and not captured.total and due and self._stderr_fd >= 0 and not self._stderr_eof
                and deadline > time.monotonic()):
            poller = select.poll()
            poller.register(self._stderr_fd, _POLL_IN)
            started = time.monotonic()
            left = min(self._startup_owed_until, deadline) - started
            settle_startup(self._reader(poller), captured.kept, left, left)
            self.stderr_waited += time.monotonic() - started
        if not captured.total:
            return captured  # nothing yet: still owed until `STARTUP_LATE` has passed
        self._startup_owed_until = 0.0
        data = captured.kept()
        part = startup_part(data, banner, boxed=bool(due) and not at_answer)
        if not part:
            return captured  # its first stderr is the call's own: it writes no banner (or none is known)
        rest = HeadTail(self.stderr_limit)
        rest.append(data[len(part):])
        self._call_stderr = rest
        self._late_banner(part)
        return rest

    def _late_banner(self, banner: bytes | None) -> None:
        """A start-up's stderr came after the start-up wait: learned, with its lag since the first answer."""
        self.late_banners += 1
        self._seen_late()
        self.lateness.note_startup(self.command, arrived=True)
        self.lateness.note_lag(self.command, time.monotonic() - self._first_answer_at)
        if banner:
            self.lateness.note_banner(self.command, banner)

    def _seen_late(self) -> None:
        """This process's stderr was seen arriving after a call's answer (noted in `lateness` by the caller):
        from now on it, and every later process of its command in the run, waits for every call's stderr."""
        self._learn_after = False
        self.stderr_late_unboxed = True

    def _settle_lines(self, captured: HeadTail, deadline: float) -> None:
        """Read the stderr of a call owing no box (lock held) once this command's stderr is known to arrive
        late: until a quiet period passes with nothing arriving and no line left open (`settle_lines`),
        never past the call's deadline; also the first tool calls owing no box of a command whose lateness is
        unknown (`probing`): a direct server costs a few quiet periods a run, then nothing."""
        if captured.dropped or self._stderr_fd < 0 or self._stderr_eof:
            return
        poller = select.poll()
        poller.register(self._stderr_fd, _POLL_IN)
        started = time.monotonic()
        quiet = min(SETTLE_LIMIT, max(SETTLE_QUIET, 2 * self.stderr_lag, 2 * self._lines_lag))
        limit = min(SETTLE_LIMIT, deadline - started)
        last = settle_lines(self._reader(poller), lambda: b"" if captured.dropped else captured.kept(), quiet,
                            limit)
        waited = time.monotonic() - started
        self.stderr_waited += waited
        self.stderr_line_waits += 1
        streaming = limit >= SETTLE_LIMIT and streamed(waited, last, quiet)
        if not streaming:  # a stream's last byte says nothing of how late a call's own lines come
            self._lines_lag = max(self._lines_lag, last)
        self.lateness.note_wait(self.command, arrived=bool(last), streaming=streaming)
        if last:
            self._seen_late()

    def _reader(self, poller: select.poll) -> Callable[[float], bytes | None]:
        """`read_within(seconds)` for `settle` and `settle_lines` (lock held): the chunk read into this call's
        stderr, b"" for none yet, None when nothing came in time or stderr ended."""

        def read_within(wait: float) -> bytes | None:
            if not poller.poll(math.ceil(wait * 1000)):
                return None
            try:
                chunk = os.read(self._stderr_fd, _READ_CHUNK)
            except BlockingIOError:
                return b""
            except OSError:
                return None
            if not chunk:
                self._stderr_eof = True
                return None
            self._append_stderr(chunk)
            return chunk

        return read_within

    def _begin_call_stderr(self) -> None:
        """Drain what is pending (it belongs to earlier calls), then capture this call's stderr apart."""
        with self._stderr_lock:
            self._drain_stderr_locked()
            self._owed_since = 0.0
            self._call_stderr = HeadTail(self.stderr_limit)
            self._writing = False

    def stderr_mark(self) -> int:
        """A position in this process's stderr: `stderr_since(mark)` is what it wrote after that point."""
        return self._stderr_mark()

    def stderr_since(self, mark: int) -> bytes:
        with self._stderr_lock:
            self._drain_stderr_locked()
            return self._stderr.since(mark)

    def stderr_bytes(self) -> bytes:
        """What was read from stderr so far: its head and tail, a mark counting the bytes not kept between."""
        with self._stderr_lock:
            self._drain_stderr_locked()
            return self._stderr.kept()

    def stderr_settled(self, within: float, quiet: float = _IDLE) -> bytes:
        """What stderr holds once something arrived (waiting up to `within` for it) and its last line is ended
        and `quiet` seconds passed with nothing more (`SETTLE_LIMIT` at most): a banner read whole even where
        a relay forwards it in pieces."""
        deadline = time.monotonic() + within
        with self._stderr_lock:
            self._drain_stderr_locked()
        while not self._stderr.total and time.monotonic() < deadline and self._stderr_fd >= 0:
            time.sleep(0.01)
            with self._stderr_lock:
                self._drain_stderr_locked()
        until = time.monotonic() + SETTLE_LIMIT
        with self._stderr_lock:
            poller = select.poll()
            if self._stderr_fd >= 0:
                poller.register(self._stderr_fd, _POLL_IN)
            while self._stderr.total and self._stderr_fd >= 0 and not self._stderr_eof:
                left = until - time.monotonic()
                ended = self._stderr.last(1) == b"\n"
                wait = min(quiet, left) if ended else left
                if wait <= 0 or not poller.poll(math.ceil(wait * 1000)):
                    break
                if not self._read_chunk_locked():
                    break
            if self._startup_owed_until and self._stderr.total and self._call_stderr is None:
                self._startup_owed_until = 0.0  # the start-up's stderr, read whole here (compare, evidence)
                self._late_banner(learnable(self._stderr.kept()) if not self._stderr.dropped else None)
            return self._stderr.kept()

    def stderr_until(self, mark: int, done: Callable[[bytes], bool], quiet: float, limit: float
                     ) -> tuple[bytes, bool]:
        """What stderr holds after `mark` once `done` says it is whole, read as it arrives (each chunk wakes
        the wait): given up when `quiet` seconds pass with nothing arriving or stderr ends (what came is all
        there is), or `limit` seconds pass. `done` is asked only when stderr ends a line (a 10 MB render is
        not read again per chunk). The flag: the limit passed with stderr still arriving (a long render
        written slowly), so what it holds is cut by the wait, not by the server."""
        until = time.monotonic() + limit
        with self._stderr_lock:
            self._drain_stderr_locked()
            poller = select.poll()
            if self._stderr_fd >= 0:
                poller.register(self._stderr_fd, _POLL_IN)
            while (self._stderr.last(1) != b"\n" or not done(self._stderr.since(mark))) and (
                    self._stderr_fd >= 0 and not self._stderr_eof):
                left = until - time.monotonic()
                if left <= 0:
                    return self._stderr.since(mark), True
                if not poller.poll(math.ceil(min(quiet, left) * 1000)):
                    if quiet < left:
                        break
                    continue
                if not self._read_chunk_locked():
                    break
            return self._stderr.since(mark), False

    def stderr_tail(self, limit: int = _STDERR_TAIL) -> str:
        with self._stderr_lock:
            self._drain_stderr_locked()
            return decode(self._stderr.last_lines(limit))

    # -- the pipe ----------------------------------------------------------------------------------

    def _require_started(self) -> None:
        if self._proc is None:
            raise RuntimeError("WireDriver not started")
        if self._closed:
            raise DriverError("driver is closed")

    def _exited(self) -> ServerExited:
        assert self._proc is not None, "the harness has no server process to report the exit of"
        try:
            returncode: int | None = self._proc.wait(1.0)
        except subprocess.TimeoutExpired:
            returncode = None
        if self.transcript is not None:
            self.transcript.note(f"server exited with status {returncode}")
        return ServerExited(returncode, stderr_tail=self.stderr_tail())

    def _write(self, frame: bytes, deadline: float, what: str, timeout: float) -> None:
        """Write all of `frame`; a server that stops reading its stdin cannot block us past the deadline."""
        if self.renamer is not None:
            frame = self.renamer.frame(frame)
        if self.transcript is not None:
            self.transcript.record("sent", frame, pid=self._transcript_pid)
        data: bytes | memoryview = frame
        while True:
            try:
                written = os.write(self._stdin_fd, data)
            except BlockingIOError:
                written = 0
            except (BrokenPipeError, ConnectionResetError):
                raise self._exited() from None
            if written == len(data):
                return
            data = memoryview(data)[written:]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ServerTimeout(what, timeout, stderr_tail=self.stderr_tail())
            self._stdin_poll.poll(math.ceil(remaining * 1000))

    def _read_line(self, deadline: float, what: str, timeout: float) -> bytes:
        lines = self._lines
        poller = self._stdout_poll
        while not lines:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ServerTimeout(what, timeout, stderr_tail=self.stderr_tail())
            wait_ms = math.ceil(remaining * 1000)
            if poller is self._stdout_poll:
                ready = poller.poll(min(wait_ms, _FIRST_WAIT_MS))
                if not ready:
                    # A slow answer: the server may be blocked on a full stderr pipe, so watch both.
                    poller = self._stdout_poll if self._stderr_eof else self._both_poll
                    continue
            else:
                ready = poller.poll(wait_ms)
                if not ready:
                    continue
                if len(ready) > 1 or ready[0][0] != self._stdout_fd:
                    if not self._read_stderr_now():
                        poller = self._stdout_poll
                    if len(ready) == 1:
                        continue
            try:
                chunk = os.read(self._stdout_fd, min(_READ_CHUNK, self.max_frame + 1))
            except BlockingIOError:
                continue
            if not chunk:
                if self._partial and self.transcript is not None:
                    self.transcript.record("received", b"".join(self._partial), pid=self._transcript_pid)
                raise self._exited()
            if not self._partial and chunk.find(b"\n") == len(chunk) - 1:
                lines.append(chunk[:-1])
                break
            newline = chunk.find(b"\n")
            if self._partial_size + (len(chunk) if newline < 0 else newline) > self.max_frame:
                raise self._frame_too_large(chunk)
            if newline < 0:
                self._partial.append(chunk)
                self._partial_size += len(chunk)
                continue
            if self._partial:
                self._partial.append(chunk)
                chunk = b"".join(self._partial)
                self._partial.clear()
            parts = chunk.split(b"\n")
            tail = parts.pop()
            self._partial_size = len(tail)
            if tail:
                self._partial.append(tail)
            lines.extend(parts)
        line = lines.popleft()
        if self.transcript is not None:
            self.transcript.record("received", line, pid=self._transcript_pid)
        return line

    def _frame_too_large(self, chunk: bytes) -> FrameTooLarge:
        """Stop reading a frame past `max_frame`: the rest of the stream cannot be framed, so the server is
        ended; the transcript gets a note and the frame's first bytes, never the frame."""
        head = (self._partial[0] if self._partial else chunk)[:200]
        self._partial.clear()
        self._partial_size = 0
        failure = FrameTooLarge(self.max_frame, line=head, stderr_tail=self.stderr_tail())
        if self.transcript is not None:
            self.transcript.note(f"{failure}; it began {decode(head)!r}")
        self.close()
        return failure

    def _parse(self, line: bytes) -> dict[str, JSON]:
        try:
            message = read_served(line, "stdout line", limit=max(self.max_frame, SERVED_BYTES))
        except Unreadable as exc:
            raise unreadable_line(exc, line, self.stderr_tail()) from None
        problem = jsonrpc_problem(message)
        if problem is not None:
            raise ProtocolViolation(
                f"{NOT_JSON_RPC} a JSON-RPC 2.0 message ({problem}): {decode(line[:200])!r}",
                line=line,
                stderr_tail=self.stderr_tail(),
            )
        assert isinstance(message, dict), (
            f"stdout line is not a JSON object: {decode(line[:200])!r}")
        return message

    def _deadline(self, timeout: float | None) -> tuple[float, float]:
        limit = self.timeout if timeout is None else timeout
        return limit, time.monotonic() + limit

    def _failed(self, failure: DriverError) -> None:
        if self.on_failure is not None:
            self.on_failure(failure)

    # -- public calls ------------------------------------------------------------------------------

    def send_raw(self, frame: bytes) -> None:
        """Write `frame` exactly as given (no newline added): malformed frames, non-standard numbers."""
        cancel.check()
        self._require_started()
        limit, deadline = self._deadline(None)
        self._learn_after = False  # what it says on stderr answers `frame`, whose answer is read apart
        try:
            self._write(frame, deadline, "send_raw", limit)
        except DriverError as exc:
            self._failed(exc)
            raise

    def read_frame(self, timeout: float | None = None) -> bytes:
        """The next stdout line, raw and unparsed (without its newline)."""
        cancel.check()
        self._require_started()
        limit, deadline = self._deadline(timeout)
        try:
            return self._read_line(deadline, "read", limit)
        except ServerExited as exc:
            self._failed(exc)
            raise

    def abandon(self, request_id: int) -> None:
        """Stop waiting for `request_id` (sent with `send_raw`): a late response to it is skipped, not taken
        for another request's answer."""
        self._abandoned.setdefault(request_id, None)

    def read_parsed(self, line: bytes) -> dict[str, JSON]:
        """A line read with `read_frame`, validated as JSON-RPC (`ProtocolViolation` if it is not)."""
        return self._parse(line)

    def read_message(self, timeout: float | None = None) -> dict[str, JSON]:
        """The next stdout message of any kind (response, notification, request), validated as JSON-RPC."""
        return self._parse(self.read_frame(timeout))

    def notify(self, method: str, params: JSON | Omitted = OMIT) -> None:
        message: dict[str, JSON] = {"jsonrpc": "2.0", "method": method}
        if not isinstance(params, Omitted):
            message["params"] = params
        cancel.check()
        self._require_started()
        limit, deadline = self._deadline(None)
        try:
            self._write(encode_message(message), deadline, method, limit)
        except DriverError as exc:
            self._failed(exc)
            raise

    def request(
        self, method: str, params: JSON | Omitted = OMIT, *, timeout: float | None = None,
        request_id: str | None = None,
    ) -> Exchange:
        """Send one request and wait for its response; a JSON-RPC error response is returned, not raised.
        A string `request_id` is sent in place of the next number: its answer must carry the same string
        (an id echoed as the number "24" reads as is a `WrongId`)."""
        if request_id is None:
            number = self._next_id
            self._next_id += 1
        sent: RequestId = number if request_id is None else request_id
        message: dict[str, JSON] = {"jsonrpc": "2.0", "id": sent, "method": method}
        if self.stateless and method != "initialize" and isinstance(params, Omitted | dict):
            params = self.era.stamped(None if isinstance(params, Omitted) else params)
        if not isinstance(params, Omitted):
            message["params"] = params
        return self._round_trip(encode_message(message), message, sent, method, timeout)

    def request_raw(
        self, frame: bytes, *, request_id: int, method: str = "", timeout: float | None = None
    ) -> Exchange:
        """Send a hand-made frame carrying `request_id` and await that response (e.g. numbers like 1e400)."""
        if request_id >= self._next_id:
            self._next_id = request_id + 1
        return self._round_trip(frame, frame, request_id, method or "raw", timeout)

    def _round_trip(
        self, frame: bytes, request: JSON | bytes, request_id: RequestId, method: str, timeout: float | None
    ) -> Exchange:
        cancel.check()
        self._require_started()
        limit, deadline = self._deadline(timeout)
        mark = self.transcript.mark() if self.transcript is not None else None
        self._in_call = True
        try:
            self._begin_call_stderr()
            t_sent = time.monotonic()
            self._write(frame, deadline, method, limit)
            self.requests_sent += 1
            response, t_received = self._await_response(request_id, deadline, method, limit)
            self.pace = pace_after(self.pace, self.requests_sent, t_received - t_sent)
            stderr = self._call_stderr_now(boxes_due(method, [response]), deadline, method == "tools/call")
        except DriverError as exc:
            self._failed(exc)
            raise
        finally:
            self._call_stderr = None
            self._in_call = False
            self._last_call_end = time.monotonic()
            self._learn_after = not self._writing and (
                method == "tools/call" or (method == "initialize" and not self._stderr.total))
        previous = self._previous_call
        if method == "tools/call":
            self._previous_call = request
        return Exchange(method, request, response, stderr.kept(), t_sent, t_received, mark, stderr.dropped,
                        previous)

    def call_tools_pipelined(
        self, calls: Sequence[tuple[str, JSON]], *, timeout: float | None = None
    ) -> tuple[list[Exchange], DriverError | None]:
        """Several tools/call requests written at once and their responses read in order, without a round
        trip per call (a long probe's thousands of calls). The stderr of the whole batch goes with its last
        exchange. Returns the exchanges answered and, when the server failed on the next one, that failure
        (the server is then in the failed state, as after `request`)."""
        cancel.check()
        self._require_started()
        limit, deadline = self._deadline(timeout)
        sent: list[tuple[int, dict[str, JSON]]] = []
        frames: list[bytes] = []
        for name, arguments in calls:
            message: dict[str, JSON] = {"jsonrpc": "2.0", "id": self._next_id, "method": "tools/call",
                                        "params": {"name": name, "arguments": arguments}}
            sent.append((self._next_id, message))
            frames.append(encode_message(message))
            self._next_id += 1
        answered: list[Exchange] = []
        self._in_call = True
        try:
            self._begin_call_stderr()
            t_sent = time.monotonic()
            self._write(b"".join(frames), deadline, "tools/call", limit)
            self.requests_sent += len(sent)
            # Answers matched by id, as JSON-RPC matches them: a server whose handlers are asynchronous
            # (agiprolabs-ts' file store) may answer call 7 before call 6; each is still its call's answer.
            pending = {request_id for request_id, _ in sent}
            early: dict[int, tuple[dict[str, JSON], float]] = {}
            for request_id, message in sent:
                while request_id not in early:
                    got, t_got = self._await_response(request_id, deadline, "tools/call", limit, also=pending)
                    answer_id = got.get("id")
                    early[answer_id if type(answer_id) is int else request_id] = (got, t_got)
                response, t_received = early.pop(request_id)
                pending.discard(request_id)
                answered.append(Exchange("tools/call", message, response, b"", t_sent, t_received,
                                         previous_call=self._previous_call))
                self._previous_call = message
            stderr = self._call_stderr_now(boxes_due("tools/call", [e.response for e in answered]), deadline,
                                           tool_call=True)
            if answered:
                answered[-1] = dataclasses.replace(answered[-1], stderr=stderr.kept(),
                                                   stderr_dropped=stderr.dropped)
        except DriverError as exc:
            self._failed(exc)
            return answered, exc
        finally:
            self._call_stderr = None
            self._in_call = False
            self._last_call_end = time.monotonic()
            self._learn_after = not self._writing
        return answered, None

    def _await_response(
        self, request_id: RequestId, deadline: float, method: str, limit: float, *,
        also: AbstractSet[int] = frozenset(),
    ) -> tuple[dict[str, JSON], float]:
        """Read until the response to `request_id`, or to one of `also` (requests written with it and not yet
        answered); server notifications and requests are skipped."""
        stray: ProtocolViolation | None = None
        skipped, grace, stray_at = 0, deadline, 0.0
        try:
            while True:
                try:
                    line = self._read_line(min(deadline, grace), method, limit)
                except ServerTimeout:
                    if stray is not None:
                        self.strays.note_unanswered(self.command, time.monotonic() - stray_at)
                        self._abandoned[request_id] = stray_at
                        raise stray from None
                    raise
                t_received = time.monotonic()
                try:
                    response = self._parse(line)
                except ProtocolViolation as exc:
                    # Read on past it, as a stdio client does (its onerror, then the next line), unless it
                    # answers the handshake (a server that writes only garbage stops there, fast) or floods.
                    if method == "initialize" or skipped >= STRAY_SKIPPED:
                        raise
                    skipped += 1
                    self._stray(line, method, request_id, exc)
                    if stray is None:
                        stray_at = t_received
                        stray, grace = exc, stray_at + self.strays.grace(self.command)
                    continue
                if "method" in response:
                    if len(self.unsolicited) < _UNSOLICITED_KEPT:
                        self.unsolicited.append(response)
                    continue
                got = response.get("id")
                ours = type(got) is type(request_id) and got == request_id
                if ours or (type(got) is int and got in also):
                    if stray is not None:
                        self.strays.note_answer(self.command, t_received - stray_at)
                    return response, t_received
                if (isinstance(got, str) or type(got) is int) and got in self._abandoned:
                    stray_read_at = self._abandoned.pop(got)
                    if stray_read_at is not None:
                        # The answer a stray line's grace gave up on came after all: its lag is learned, so
                        # the next wait is long enough for it.
                        self.strays.note_answer(self.command, t_received - stray_read_at)
                    if self.transcript is not None:
                        self.transcript.note(f"late response to abandoned request {got} skipped")
                    continue
                raise WrongId(request_id, got, line=line, stderr_tail=self.stderr_tail())
        except (ServerTimeout, ProtocolViolation):
            self._abandoned.setdefault(request_id, None)
            raise

    def _stray(self, line: bytes, method: str, request_id: RequestId, failure: ProtocolViolation) -> None:
        """Keep a stray line skipped while awaiting `request_id`, and say so in the transcript."""
        self.strays_seen += 1
        if self.first_stray is None:
            self.first_stray = str(failure)
        if len(self.stray_lines) < STRAY_KEPT:
            self.stray_lines.append(line[:200])
        if self.transcript is not None:
            self.transcript.note(f"stray stdout line skipped while awaiting {method} (request {request_id}); "
                                 f"read on for its answer")

    def initialize(self, protocol_version: str = PROTOCOL_VERSION) -> dict[str, JSON]:
        """The MCP handshake: initialize, check it succeeded, then notifications/initialized. An offer
        answered with a JSON-RPC error is followed by the other handshake revisions, newest first
        (`offered_next`), on the same process: the first accepted one settles it, the refusal kept
        (`refused_offer`)."""
        exchange = self.request(
            "initialize",
            {"protocolVersion": protocol_version, "capabilities": {}, "clientInfo": CLIENT_INFO},
        )
        result = exchange.result
        if result is None and exchange.error is not None:
            for offer in offered_next(protocol_version):
                again = self.request(
                    "initialize", {"protocolVersion": offer, "capabilities": {}, "clientInfo": CLIENT_INFO})
                if again.result is not None:
                    self.refused_offer = RefusedOffer(protocol_version, exchange.error, offer)
                    result = again.result
                    break
        if result is None:
            raise DriverError(
                f"initialize was answered without a result: {json.dumps(exchange.response)[:300]}",
                stderr_tail=self.stderr_tail(),
            )
        self.notify("notifications/initialized")
        self.initialize_result = result
        version = result.get("protocolVersion")
        self.negotiated = version if isinstance(version, str) else None
        return result

    def discover(self) -> Exchange:
        """`server/discover` with this era's envelope (at 2026-07-28 for a handshake era's probe)."""
        era = self.era if self.era.connects != "initialize" else STATELESS
        if self.stateless:
            return self.request("server/discover")
        return self.request("server/discover", era.stamped(None))

    def connect(self) -> str | None:
        """Open the connection as this era's client does; the revision settled on (None: none agreed).

        `initialize` offering the revision; stateless: `server/discover`, then every request carries the
        envelope whatever the answer (a 2026-07-28 client has no other way to speak); `auto`, the SDK's
        probe: stateless when discover lists 2026-07-28, else `initialize` at 2025-11-25.
        """
        if self.era.connects == "initialize":
            self.initialize(self.era.revision)
            return self.negotiated
        probe = self.discover()
        result = probe.result
        supported = result.get("supportedVersions") if result is not None else None
        modern = isinstance(supported, list) and STATELESS_REVISION in supported
        if self.era.connects == "stateless" or modern:
            self.discover_result = result
            self.stateless = True
            self.negotiated = STATELESS_REVISION if modern else None
            return self.negotiated
        self.initialize(LATEST_HANDSHAKE)
        return self.negotiated

    def list_tools(self) -> Exchange:
        return self.request("tools/list")

    def call_tool(
        self, name: str, arguments: JSON | Omitted = OMIT, *, timeout: float | None = None,
        request_id: str | None = None,
    ) -> Exchange:
        """tools/call; `arguments` may be any JSON (null, a list, ...) or OMIT to leave the key out; a string
        `request_id` is sent in place of the next number (`request`)."""
        params: dict[str, JSON] = {"name": name}
        if not isinstance(arguments, Omitted):
            params["arguments"] = arguments
        return self.request("tools/call", params, timeout=timeout, request_id=request_id)


def boxes_due(method: str, responses: Sequence[dict[str, JSON]]) -> int:
    """How many thought boxes the answers say were drawn: one per tools/call answered with a result that is
    not an error (the original renders each accepted thought on stderr before answering)."""
    if method != "tools/call":
        return 0
    return sum(1 for response in responses
               if isinstance(result := response.get("result"), dict) and not js_truthy(result.get("isError")))


def boxes_complete(data: bytes, due: int) -> bool:
    """Whether a call's stderr is whole: at least `due` boxes closed, none left open, the last line ended.
    The box's borders are the original's (┌ opens a box, └ closes it, each on a line of its own) or a fork's
    double, rounded or heavy ones."""
    if not data.strip():
        return due == 0
    closed = _count(data, _BOTTOMS)
    return data.endswith(b"\n") and closed >= due and closed >= _count(data, _TOPS)


def boxes_closed(data: bytes) -> int:
    """How many boxes `data` closes (their bottom corners, in any style `boxes_complete` reads)."""
    return _count(data, _BOTTOMS)


def box_open(data: bytes) -> bool:
    """Whether stderr stops inside a box (one opened and not closed) or inside a line."""
    return line_open(data) or (bool(data.strip()) and _count(data, _TOPS) > _count(data, _BOTTOMS))


def line_open(data: bytes) -> bool:
    """Whether stderr stops inside a line (its last line not ended)."""
    return bool(data.strip()) and not data.endswith(b"\n")


def box_bound(lag: float) -> float:
    """How long a call whose box is open waits for its end in all: twice `lag`, the longest a box (or a
    start-up's stderr) of its command was seen completing after its answer, `SETTLE_LIMIT` at least and
    `SETTLE_OPEN_LIMIT` at most. A direct server's boxes are in the pipe at its answer: it never waits past
    `SETTLE_LIMIT`."""
    return min(SETTLE_OPEN_LIMIT, max(SETTLE_LIMIT, 2 * lag))


def settle(
    read_within: Callable[[float], bytes | None], held: Callable[[], bytes], due: int, quiet: float,
    limit: float, pending: Callable[[bytes], bool] = box_open,
) -> bool:
    """Wait for the late stderr of a call answered with `due` boxes, reading with `read_within(seconds)`
    (the chunk read, b"" for none yet, None when nothing came in time or stderr ended) until `held()`, the
    call's stderr so far, holds them complete, or `limit` seconds pass, or it holds `SETTLE_BYTES`. While
    `pending(held())` (by default a box or a line open) it waits to the limit; otherwise until `quiet` seconds
    pass with no box border arriving (other bytes, a heartbeat, do not extend it).

    Whether what arrived while waiting completed the boxes: a box arriving late. Border characters alone
    (a thought's text echoed back, a box never closed) are not one, so a server writing them is not taken
    for one whose boxes arrive late. A box in a style with no corner of its own (ASCII: "+" at every corner
    and at the middle rule) is never counted complete: its rules arriving extend the quiet period, and what
    arrived is a late box when it holds two rule lines and nothing is left open (fork-tidy-plan through the
    stderr relay, held-out-multi-15: each late ASCII box was read as the next call's, 24 entries changed)."""
    started = time.monotonic()
    until, quiet_until = started + limit, started + quiet
    arrived = False
    came = bytearray()
    while True:
        data = held()
        if boxes_complete(data, due) or (arrived and ruled_complete(data, due)):
            return arrived
        if len(data) >= SETTLE_BYTES:
            return False
        now = time.monotonic()
        wait = until - now if pending(data) else min(quiet_until, until) - now
        chunk = read_within(wait) if wait > 0 else None
        if chunk is None:
            return ruled_box(bytes(came)) and not box_open(held())
        arrived = arrived or bool(chunk)
        if len(came) < SETTLE_BYTES:
            came += chunk
        if any(line in chunk for line in _BORDERS) or _RUN.search(chunk):
            quiet_until = time.monotonic() + quiet


def ruled_complete(data: bytes, due: int) -> bool:
    """Whether `data` ends with a rule line after the three rules (top, middle, bottom) of each of `due`
    boxes drawn in any style: a late ASCII box is whole without waiting out the quiet period on every call."""
    lines = data.decode("utf-8", "replace").rstrip("\n").split("\n")
    return (data.endswith(b"\n") and bool(_RULE.fullmatch(lines[-1]))
            and len(_RULE.findall(data.decode("utf-8", "replace"))) >= 3 * due)


def ruled_box(data: bytes) -> bool:
    """Whether `data` holds a box in any style: two rule lines (`_RULE`), its top and its bottom at least."""
    return len(_RULE.findall(data.decode("utf-8", "replace"))) >= 2


def settle_lines(
    read_within: Callable[[float], bytes | None], held: Callable[[], bytes], quiet: float, limit: float,
) -> float:
    """Wait for the late stderr of a call that owes no box (a refusal logged through a relay), reading with
    `read_within` as `settle` does: until `quiet` seconds pass with nothing arriving (each arrival starts
    the quiet period again), while a line is open until `limit`, and never past `limit` or `SETTLE_BYTES`.
    Returns when, after the start, the last byte arrived (0.0: none did): how late this stderr comes."""
    started = time.monotonic()
    until, quiet_until = started + limit, started + quiet
    last = 0.0
    while True:
        data = held()
        if len(data) >= SETTLE_BYTES:
            return last
        now = time.monotonic()
        wait = until - now if data and not data.endswith(b"\n") else min(quiet_until, until) - now
        if wait <= 0:
            return last
        chunk = read_within(wait)
        if chunk is None:
            return last
        if chunk:
            arrived = time.monotonic()
            last, quiet_until = arrived - started, arrived + quiet


STARTUP_FIRST: Final = 0.3
"""Seconds a process's first answer waits for its start-up stderr's first bytes when none came yet and
the run has seen no lag on its command: a relay forwards a banner within tens of milliseconds (the tests'
relays: 60 to 90 ms), while a server writing no banner pays this on each of the first `QUIET_STARTS`
processes of a run (a whole `SETTLE_LIMIT` doubled the cost of compares starting many short processes)."""


def startup_first(lateness: Lateness, command: Sequence[str]) -> float:
    """How long a fresh process of `command` holding no stderr at its first answer waits for its banner: twice
    the longest lag the run has seen on that command, `STARTUP_FIRST` at least and `SETTLE_LIMIT` at most; 0
    once the run found its processes writing nothing at start-up (`Lateness.waits_for_startup`)."""
    if not lateness.waits_for_startup(command):
        return 0.0
    return min(SETTLE_LIMIT, max(STARTUP_FIRST, 2 * lateness.lag(command)))


def settle_startup(
    read_within: Callable[[float], bytes | None], held: Callable[[], bytes], first: float, limit: float,
) -> bool:
    """Read a process's start-up stderr (its banner) after its first answer, with `read_within` as `settle`
    does, until it is complete: something held and its last line ended. With nothing held yet, wait up to
    `first` seconds for its first bytes (0: none is waited for); never past `limit` or `SETTLE_BYTES`. A
    relay forwards the banner after the answer, split anywhere: read now, it is the start-up's, not the
    first call's. Whether anything arrived."""
    started = time.monotonic()
    until, first_until = started + limit, started + min(first, limit)
    arrived = False
    while True:
        data = held()
        if (data and data.endswith(b"\n")) or len(data) >= SETTLE_BYTES:
            return arrived
        wait = (until if data else first_until) - time.monotonic()
        if wait <= 0:
            return arrived
        chunk = read_within(wait)
        if chunk is None:
            return arrived
        arrived = arrived or bool(chunk)


def streamed(waited: float, last: float, quiet: float) -> bool:
    """Whether a `settle_lines` wait of `waited` seconds, its last byte `last` seconds in, ran to the whole
    `SETTLE_LIMIT` with stderr still arriving, never quiet: a stream (a heartbeat), not a call's late lines
    (a line left open, then silent, is not one)."""
    return waited >= SETTLE_LIMIT and waited - last < quiet


def jsonrpc_problem(message: object) -> str | None:
    """Why `message` is not a JSON-RPC 2.0 message, or None when it is one."""
    if not isinstance(message, dict):
        return f"a JSON {type(message).__name__}, not an object"
    if message.get("jsonrpc") != "2.0":
        return 'missing "jsonrpc": "2.0"'
    if "method" in message:
        return None if isinstance(message["method"], str) else "method is not a string"
    if "id" not in message:
        return "neither a request, a notification nor a response"
    if ("result" in message) == ("error" in message):
        return "a response needs exactly one of result and error"
    return None
