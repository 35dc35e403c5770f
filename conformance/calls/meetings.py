"""What a target answers to a client of one era: a process met once, read by every spec check.

The specification's records (kind `spec`) are judged per era: a client of that revision connects as it does
(`core/eras.py`) and asks a few things (the tool list, three calls, ping, an unknown method, a batch, an
unknown tool, at 2026-07-28 a request naming a version nobody implements and requests missing a required
`_meta` field, and once initialized, an initialize offering each version). Every spec check reads the same
`Meeting` (`suite/era_meetings.py` holds a run's), and a spec departure's behaviour signature
(`gate/spec_signatures.py`) reads a fresh one: the parts its record `reads`.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol

from conformance.core.eras import (
    CLIENT_CAPABILITIES_KEY,
    PROTOCOL_VERSION_KEY,
    REVISIONS,
    Era,
    RefusedOffer,
)
from conformance.core.jsontypes import JSON
from conformance.core.protocol import CLIENT_INFO, TOOL, the_tool
from conformance.core.served import SERVED_BYTES, Unreadable, read_served
from conformance.drivers.ending import STDIN_END, too_slow
from conformance.drivers.errors import DriverError, ServerTimeout
from conformance.drivers.lateness import Lateness
from conformance.drivers.wire import WireDriver, encode_message, unreadable_line

Running = tuple[subprocess.Popen[bytes], bytes]
"""A running process of the target another driver is done with, and the stderr read from its start."""


class Spawnable(Protocol):
    """What a meeting needs of a target: how to start it (a `Target` is one)."""

    @property
    def command(self) -> Sequence[str]: ...

    @property
    def env(self) -> Mapping[str, str]: ...

    @property
    def renames(self) -> Mapping[str, str]: ...

CALLS: Final[tuple[JSON, ...]] = (
    {"thought": "era one", "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": True},
    {"thought": "era two", "thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": False,
     "branchFromThought": 1, "branchId": "era"},
    {"thought": 1},
)
"""Two accepted calls (the second files a branch) and one the tool refuses."""

UNKNOWN_METHOD: Final = "seqthink/no-such-method"
UNKNOWN_TOOL: Final = "seqthink_no_such_tool"
"""A tool name no server lists, called with arguments the real tool accepts."""
MISSING_META: Final[dict[str, tuple[str, int]]] = {
    PROTOCOL_VERSION_KEY: ("no-protocol-version", 9011),
    CLIENT_CAPABILITIES_KEY: ("no-client-capabilities", 9012),
}
"""The required `_meta` fields a stateless meeting leaves out, one tools/list each: name and request id."""
UNIMPLEMENTED_VERSION: Final = "1999-01-01"
UNIMPLEMENTED_VERSION_ID: Final = 9010
BATCH_IDS: Final = (9001, 9002)
AFTER_BATCH_ID: Final = 9003
BATCH_FRAMES_KEPT: Final = 16
"""Frames kept between a batch and the ping after it (a server answers a batch with one frame, or two)."""
BATCH_BYTES_KEPT: Final = 4 << 20
"""Bytes of those frames kept: what comes after is read (to find the ping's answer) and dropped."""
CANCELLED_ID: Final = 9020
"""The tools/call the cancellation probe cancels in the same write that sends it."""
AFTER_CANCEL_ID: Final = 9021
"""The tools/list written after the notification: its answer shows the server has read the notification."""
CANCELLED_CALL: Final[JSON] = {"thought": "cancelled", "thoughtNumber": 1, "totalThoughts": 1,
                               "nextThoughtNeeded": False}
CANCEL_GRACE: Final = 0.5
"""Seconds a response to the cancelled call is waited for once the tools/list after it is answered."""
UNKNOWN_OFFERS: Final[tuple[str, ...]] = (UNIMPLEMENTED_VERSION, "2099-12-31")
"""Versions no revision defines offered to initialize: a past one and a well-formed future date."""
OFFERS: Final[tuple[str, ...]] = (*REVISIONS, *UNKNOWN_OFFERS)
"""What a meeting that initialized offers again, one `initialize` each, to learn the revisions the server
supports (those it answers with when offered them). Measured on every release and the reference: a repeated
initialize is answered as a fresh process answers it."""

@dataclass
class Meeting:
    """A target met by one era's client: how the connection settled and each answer, as JSON."""

    era: Era
    negotiated: str | None = None
    initialize: dict[str, JSON] | None = None
    discover: dict[str, JSON] = field(default_factory=dict)
    tools_list: dict[str, JSON] = field(default_factory=dict)
    calls: list[tuple[JSON, dict[str, JSON]]] = field(default_factory=list)
    ping: dict[str, JSON] = field(default_factory=dict)
    unknown_method: dict[str, JSON] = field(default_factory=dict)
    unimplemented_version: dict[str, JSON] | None = None
    offers: dict[str, dict[str, JSON]] = field(default_factory=dict)
    """Each version of `OFFERS` and the answer to an initialize offering it (none for a stateless client)."""
    batch_frames: list[JSON] = field(default_factory=list)
    """Every frame that came back between a batch of two pings and the ping sent after it (the first
    `BATCH_FRAMES_KEPT`, at most `BATCH_BYTES_KEPT` bytes)."""
    unknown_tool: dict[str, JSON] = field(default_factory=dict)
    """The answer to tools/call of `UNKNOWN_TOOL`."""
    missing_meta: dict[str, dict[str, JSON]] = field(default_factory=dict)
    """A stateless meeting's tools/list without each required `_meta` field (`MISSING_META`), by name."""
    unsolicited: list[JSON] = field(default_factory=list)
    """The first messages the server sent of its own (notifications, requests) while answering."""
    tools_list_again: dict[str, JSON] = field(default_factory=dict)
    """A second tools/list, nothing changed since the first."""
    repeated_call: dict[str, JSON] = field(default_factory=dict)
    """The first of `CALLS` sent again, after the others, with the same arguments (no identifier in it)."""
    cancellation: list[JSON] = field(default_factory=list)
    """What came back, in order, to a tools/call (`CANCELLED_ID`), notifications/cancelled naming it and a
    tools/list (`AFTER_CANCEL_ID`) written at once: read until tools/list's answer, then `CANCEL_GRACE`
    seconds more while the call is unanswered (the first `BATCH_FRAMES_KEPT` frames)."""
    end_of_input: int | str | None = "not reached"
    """The exit status once stdin was closed at the meeting's end: None if still running `end_wait` later,
    "not reached" when the meeting stopped first."""
    end_wait: float = 0.0
    """Seconds the exit was waited for once stdin was closed (`drivers/ending.end_bound` of the meeting's
    process: the call timeout at least, more for a process slow to answer; `known_bound` once a process of its
    command outlived a whole one, `end_outlived`)."""
    end_outlived: float | None = None
    """The whole bound a process of the same command was still running after its stdin closed, earlier in the
    run (`drivers/ending.Outlived`): what the shorter `end_wait` stands on; None when none was."""
    end_slow: bool = False
    """Still running when a bound its own pace cut short ran out (`drivers/ending.too_slow`): slow, not a
    departure."""
    refused_offer: RefusedOffer | None = None
    """The client's own initialize refused for the version it offered, when a version offered next was
    accepted and the meeting went on at it (SPEC-1 judges the refusal)."""
    failure: str | None = None
    """Why the meeting stopped early (the server died or hung); checks then fail with it."""
    stray_stdout: str | None = None
    """The driver's failure for the first stdout line that was not a JSON-RPC message, which the meeting read
    past to the answer after it, as a stdio client does (SPEC-20 judges it); None when there was none."""

    @property
    def tools(self) -> list[JSON]:
        result = self.tools_list.get("result")
        listed = result.get("tools") if isinstance(result, dict) else None
        return listed if isinstance(listed, list) else []

    def output_schema(self) -> JSON:
        """The listed tool's outputSchema (None when it declares none)."""
        tool = the_tool(self.tools)
        return tool.get("outputSchema") if tool is not None else None

    def answer(self, part: str) -> JSON:
        """One part of what came back, as a record's `reads` names it (ids and `jsonrpc` left out: they are
        the client's numbering); how the meeting stopped, when it did, is part of every answer."""
        answer: JSON
        if part == "initialize":
            initialize = self.initialize
            answer = None if initialize is None else {"protocolVersion": initialize.get("protocolVersion")}
            refused = self.refused_offer
            if answer is not None and refused is not None:
                answer["refused"] = {"offered": refused.offered, "error": dict(refused.error)}
        elif part == "capabilities":
            answer = None if self.initialize is None else self.initialize.get("capabilities")
        elif part == "missing-meta":
            answer = {name: _reply(response) for name, response in self.missing_meta.items()}
        elif part == "unsolicited":
            answer = list(self.unsolicited)
        elif part == "stream":
            answer = None if self.failure is None else self.failure.split(":", 1)[0]
        elif part == "end-of-input":
            answer = {"exited": self.end_of_input is not None, "status": self.end_of_input}
        elif part == "offers":
            answer = {offer: _reply(response) for offer, response in self.offers.items()}
        elif part == "calls":
            answer = [[arguments, _reply(response)] for arguments, response in self.calls]
        elif part == "batch":
            answer = list(self.batch_frames)
        elif part == "cancellation":
            answer = [[_cancel_role(frame), _reply(frame) if isinstance(frame, dict) else frame]
                      for frame in self.cancellation]
        else:
            answer = _reply({
                "discover": self.discover, "tools/list": self.tools_list, "ping": self.ping,
                "unknown-method": self.unknown_method, "unknown-tool": self.unknown_tool,
                "tools/list-again": self.tools_list_again, "repeated-call": self.repeated_call,
                "unimplemented-version": self.unimplemented_version or {},
            }[part])
        if self.failure is not None:
            return {"answer": answer, "stopped": self.failure.split(":", 1)[0]}
        return answer

    def label(self) -> str:
        settled = self.negotiated or "no revision agreed"
        return f"{self.era.name} client, settled on {settled}"


def meets(meeting: Meeting) -> str:
    """What the era's client meets, in a line: how the connection settled, and for a 2026-07-28 client that
    settled on nothing, what the server does with its requests (serves them the old way, refuses them)."""
    if meeting.failure is not None:
        return f"the meeting stopped: {meeting.failure.split(':', 1)[0]}"
    era = meeting.era
    offer = meeting.refused_offer
    after = "" if offer is None else f" after refusing {offer.offered} ({offer.error.get('code')})"
    if era.connects == "initialize":
        settled = meeting.negotiated
        return f"initialize settles on {settled}{after}" if settled else "initialize agrees on no revision"
    probe = _error_code(meeting.discover)
    if meeting.negotiated is not None and meeting.initialize is None:
        return f"served statelessly at {meeting.negotiated}"
    if meeting.negotiated is not None:
        return f"server/discover refused ({probe}); initialize settles on {meeting.negotiated}{after}"
    refused = (f"server/discover refused ({probe})" if probe is not None
               else "server/discover does not list 2026-07-28")
    listed = meeting.tools_list.get("result")
    if isinstance(listed, dict) and "resultType" not in listed:
        odd = isinstance((meeting.unimplemented_version or {}).get("result"), dict)
        return (f"{refused}; serves 2026-07-28 requests the old way (results without resultType"
                f"{', even one naming version ' + UNIMPLEMENTED_VERSION if odd else ''})")
    code = _error_code(meeting.tools_list)
    if code is not None:
        return f"{refused}; refuses 2026-07-28 requests ({code})"
    return refused


def _error_code(response: dict[str, JSON]) -> JSON:
    error = response.get("error")
    return error.get("code") if isinstance(error, dict) else None


def _reply(response: dict[str, JSON]) -> JSON:
    return {key: value for key, value in response.items() if key not in ("id", "jsonrpc")}


def meet(target: Spawnable, era: Era, *, timeout: float, running: Running | None = None) -> Meeting:
    """Connect to a fresh process of `target` as `era`'s client and ask what every spec check reads; with
    `running`, to that process instead (one another driver started and is done with, nothing unread on its
    stdout): the client's handshake is then a repeated one, which the releases and the reference answer as a
    first one (`suite/era_meetings.py` says what was measured). The meeting ends the process either way."""
    meeting = Meeting(era)
    lateness = getattr(target, "lateness", None)  # a `Target`'s run learning; a test's stand-in has none
    driver = WireDriver(target.command, env=target.env, timeout=timeout, era=era, renames=target.renames,
                        lateness=lateness if isinstance(lateness, Lateness) else None)
    try:
        with contextlib.closing(driver):
            if running is None:
                driver.start()
            else:
                driver.adopt(running[0], initialize_result=None, stderr_before=running[1])
            meeting.negotiated = driver.connect()
            meeting.initialize = driver.initialize_result
            meeting.refused_offer = driver.refused_offer
            meeting.discover = driver.discover().response
            meeting.tools_list = driver.list_tools().response
            meeting.calls = [(arguments, driver.call_tool(TOOL, arguments).response) for arguments in CALLS]
            meeting.ping = driver.request("ping").response
            meeting.unknown_method = driver.request(UNKNOWN_METHOD).response
            if driver.stateless:
                meeting.unimplemented_version = _restamped(
                    driver, era, UNIMPLEMENTED_VERSION_ID, PROTOCOL_VERSION_KEY, UNIMPLEMENTED_VERSION)
            meeting.batch_frames = _batch(driver, era)
            meeting.unknown_tool = driver.call_tool(UNKNOWN_TOOL, CALLS[0]).response
            if driver.stateless:
                meeting.missing_meta = _missing_meta(driver, era)
            meeting.tools_list_again = driver.list_tools().response
            meeting.repeated_call = driver.call_tool(TOOL, CALLS[0]).response
            meeting.cancellation = _cancellation(driver, era)
            meeting.unsolicited = list(driver.unsolicited)
            if meeting.initialize is not None:
                meeting.offers = {version: _offer(driver, version) for version in OFFERS}
            meeting.end_outlived = driver.lateness.ends.outlived(driver.command, STDIN_END)
            meeting.end_of_input, meeting.end_wait = driver.end_input_paced()
            meeting.end_slow = meeting.end_of_input is None and too_slow(driver.timeout, driver.pace)
    except DriverError as exc:
        meeting.failure = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    if driver.first_stray is not None:
        meeting.stray_stdout = f"ProtocolViolation: {' '.join(driver.first_stray.split())[:300]}"
    return meeting


def _missing_meta(driver: WireDriver, era: Era) -> dict[str, dict[str, JSON]]:
    """tools/list stamped as `era` stamps it but for one required `_meta` field, once per field."""
    return {name: _restamped(driver, era, request_id, key, None)
            for key, (name, request_id) in MISSING_META.items()}


def _restamped(driver: WireDriver, era: Era, request_id: int, key: str, value: str | None) -> dict[str, JSON]:
    """tools/list with `era`'s envelope but `key` set to `value` (left out when None), sent as written: the
    driver's own stamping would put the era's envelope back."""
    params = era.stamped(None)
    meta = params["_meta"]
    assert isinstance(meta, dict), f"the harness could not stamp a stateless request: _meta is {meta!r}"
    if value is None:
        meta.pop(key, None)
    else:
        meta[key] = value
    frame: JSON = {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params}
    return driver.request_raw(encode_message(frame), request_id=request_id, method="tools/list").response


def _offer(driver: WireDriver, version: str) -> dict[str, JSON]:
    """The answer to one more initialize offering `version` (last in a meeting: nothing reads after it)."""
    params: dict[str, JSON] = {"protocolVersion": version, "capabilities": {},
                               "clientInfo": dict(CLIENT_INFO)}
    return driver.request("initialize", params).response


def _cancel_role(frame: JSON) -> str:
    """What a frame of the cancellation probe answers: the cancelled call, the request after, or neither."""
    got = frame.get("id") if isinstance(frame, dict) else None
    return {CANCELLED_ID: "cancelled call", AFTER_CANCEL_ID: "after"}.get(got, "other") \
        if type(got) is int else "other"


def _cancellation(driver: WireDriver, era: Era) -> list[JSON]:
    """tools/call, notifications/cancelled naming it and tools/list in one write (so a server reads them in
    that order, and may read them in one chunk, as the TypeScript SDK does); the frames read until the
    tools/list's answer, then while the call is unanswered, `CANCEL_GRACE` seconds more. Bounded as the
    batch is (one deadline, `BATCH_FRAMES_KEPT` frames); an unanswered call's late response is skipped."""
    stamped = driver.stateless
    call: JSON = {"jsonrpc": "2.0", "id": CANCELLED_ID, "method": "tools/call",
                  "params": era.stamped({"name": TOOL, "arguments": CANCELLED_CALL})
                  if stamped else {"name": TOOL, "arguments": CANCELLED_CALL}}
    notice: JSON = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": CANCELLED_ID, "reason": "conformance probe"}}
    after: JSON = {"jsonrpc": "2.0", "id": AFTER_CANCEL_ID, "method": "tools/list",
                   **({"params": era.stamped(None)} if stamped else {})}
    driver.send_raw(b"".join(encode_message(m) for m in (call, notice, after)))
    deadline = time.monotonic() + driver.timeout
    grace: float | None = None
    frames: list[JSON] = []
    answered = False
    while True:
        remaining = (deadline if grace is None else grace) - time.monotonic()
        try:
            if remaining <= 0:
                raise ServerTimeout("read", remaining)
            line = driver.read_frame(timeout=remaining)
        except ServerTimeout:
            if grace is not None:
                driver.abandon(CANCELLED_ID)
                return frames
            tail = driver.stderr_tail()
            what = "tools/list after a cancelled call"
            raise ServerTimeout(what, driver.timeout, stderr_tail=tail) from None
        try:
            frame = read_served(line, "reply to a cancelled call", limit=max(driver.max_frame, SERVED_BYTES))
        except Unreadable as exc:
            raise unreadable_line(exc, line, driver.stderr_tail()) from None
        if len(frames) < BATCH_FRAMES_KEPT:
            frames.append(frame)
        role = _cancel_role(frame)
        answered = answered or role == "cancelled call"
        if role == "after":
            if answered:
                return frames
            grace = time.monotonic() + CANCEL_GRACE
        elif role == "cancelled call" and grace is not None:
            return frames


def _batch(driver: WireDriver, era: Era) -> list[JSON]:
    """Send a batch array of two pings and a ping after it; the frames read before that ping's answer.

    One deadline for all of it (the call timeout, not restarted by each frame: a server that chatters without
    end is a `ServerTimeout`), and at most `BATCH_FRAMES_KEPT` frames and `BATCH_BYTES_KEPT` bytes kept;
    a frame the reader refuses is a `ProtocolViolation`, as any stdout line."""
    params: dict[str, JSON] = {"params": era.stamped(None)} if driver.stateless else {}
    pings = [{"jsonrpc": "2.0", "id": request_id, "method": "ping", **params}
             for request_id in (*BATCH_IDS, AFTER_BATCH_ID)]
    batch, after = pings[:2], pings[2]
    driver.send_raw((json.dumps(batch) + "\n" + json.dumps(after) + "\n").encode())
    deadline = time.monotonic() + driver.timeout
    frames: list[JSON] = []
    kept = 0
    while True:
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0:
                raise ServerTimeout("read", remaining)
            line = driver.read_frame(timeout=remaining)
        except ServerTimeout:
            tail = driver.stderr_tail()
            raise ServerTimeout("ping after a batch", driver.timeout, stderr_tail=tail) from None
        try:
            frame = read_served(line, "reply to a batch", limit=max(driver.max_frame, SERVED_BYTES))
        except Unreadable as exc:
            raise unreadable_line(exc, line, driver.stderr_tail()) from None
        if isinstance(frame, dict) and frame.get("id") == AFTER_BATCH_ID:
            return frames
        if len(frames) < BATCH_FRAMES_KEPT and kept + len(line) <= BATCH_BYTES_KEPT:
            frames.append(frame)
            kept += len(line)
