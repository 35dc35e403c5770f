"""What a target answers to a client of one era: a fresh process met once, read by every spec check.

The specification's records (kind `spec`) are judged per era: a client of that revision connects as it does
(`core/eras.py`) and asks a few things (the tool list, three calls, ping, an unknown method, a batch, at
2026-07-28 a request naming a version nobody implements, and once initialized, an initialize offering each
version). Every spec check reads the same `Meeting` (`suite/era_meetings.py` holds a run's), and a spec
departure's behaviour signature (`gate/spec_signatures.py`) reads a fresh one: the parts its record `reads`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol

from conformance.core.eras import PROTOCOL_VERSION_KEY, REVISIONS, Era
from conformance.core.jsontypes import JSON
from conformance.core.protocol import CLIENT_INFO, TOOL
from conformance.core.served import SERVED_BYTES, Unreadable, read_served
from conformance.drivers.errors import DriverError, ServerTimeout
from conformance.drivers.wire import WireDriver, unreadable_line


class Spawnable(Protocol):
    """What a meeting needs of a target: how to start it (a `Target` is one)."""

    @property
    def command(self) -> Sequence[str]: ...

    @property
    def env(self) -> Mapping[str, str]: ...

CALLS: Final[tuple[JSON, ...]] = (
    {"thought": "era one", "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": True},
    {"thought": "era two", "thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": False,
     "branchFromThought": 1, "branchId": "era"},
    {"thought": 1},
)
"""Two accepted calls (the second files a branch) and one the tool refuses."""

UNKNOWN_METHOD: Final = "seqthink/no-such-method"
UNIMPLEMENTED_VERSION: Final = "1999-01-01"
BATCH_IDS: Final = (9001, 9002)
AFTER_BATCH_ID: Final = 9003
BATCH_FRAMES_KEPT: Final = 16
"""Frames kept between a batch and the ping after it (a server answers a batch with one frame, or two)."""
BATCH_BYTES_KEPT: Final = 4 << 20
"""Bytes of those frames kept: what comes after is read (to find the ping's answer) and dropped."""
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
    failure: str | None = None
    """Why the meeting stopped early (the server died or hung); checks then fail with it."""

    @property
    def tools(self) -> list[JSON]:
        result = self.tools_list.get("result")
        listed = result.get("tools") if isinstance(result, dict) else None
        return listed if isinstance(listed, list) else []

    def output_schema(self) -> JSON:
        """The listed tool's outputSchema (None when it declares none)."""
        for tool in self.tools:
            if isinstance(tool, dict) and tool.get("name") == TOOL:
                return tool.get("outputSchema")
        return None

    def answer(self, part: str) -> JSON:
        """One part of what came back, as a record's `reads` names it (ids and `jsonrpc` left out: they are
        the client's numbering); how the meeting stopped, when it did, is part of every answer."""
        answer: JSON
        if part == "initialize":
            initialize = self.initialize
            answer = None if initialize is None else {"protocolVersion": initialize.get("protocolVersion")}
        elif part == "offers":
            answer = {offer: _reply(response) for offer, response in self.offers.items()}
        elif part == "calls":
            answer = [[arguments, _reply(response)] for arguments, response in self.calls]
        elif part == "batch":
            answer = list(self.batch_frames)
        else:
            answer = _reply({
                "discover": self.discover, "tools/list": self.tools_list, "ping": self.ping,
                "unknown-method": self.unknown_method,
                "unimplemented-version": self.unimplemented_version or {},
            }[part])
        if self.failure is not None:
            return {"answer": answer, "stopped": self.failure.split(":", 1)[0]}
        return answer

    def label(self) -> str:
        settled = self.negotiated or "no revision agreed"
        return f"{self.era.name} client, settled on {settled}"


def _reply(response: dict[str, JSON]) -> JSON:
    return {key: value for key, value in response.items() if key not in ("id", "jsonrpc")}


def meet(target: Spawnable, era: Era, *, timeout: float) -> Meeting:
    """Connect to a fresh process of `target` as `era`'s client and ask what every spec check reads."""
    meeting = Meeting(era)
    driver = WireDriver(target.command, env=target.env, timeout=timeout, era=era)
    try:
        with driver:
            meeting.negotiated = driver.connect()
            meeting.initialize = driver.initialize_result
            meeting.discover = driver.discover().response
            meeting.tools_list = driver.list_tools().response
            meeting.calls = [(arguments, driver.call_tool(TOOL, arguments).response) for arguments in CALLS]
            meeting.ping = driver.request("ping").response
            meeting.unknown_method = driver.request(UNKNOWN_METHOD).response
            if driver.stateless:
                params = era.stamped(None)
                meta = params["_meta"]
                assert isinstance(meta, dict), (
                    f"the harness could not stamp a stateless request: _meta is {meta!r}")
                meta[PROTOCOL_VERSION_KEY] = UNIMPLEMENTED_VERSION
                meeting.unimplemented_version = driver.request("tools/list", params).response
            meeting.batch_frames = _batch(driver, era)
            if meeting.initialize is not None:
                meeting.offers = {version: _offer(driver, version) for version in OFFERS}
    except DriverError as exc:
        meeting.failure = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    return meeting


def _offer(driver: WireDriver, version: str) -> dict[str, JSON]:
    """The answer to one more initialize offering `version` (last in a meeting: nothing reads after it)."""
    params: dict[str, JSON] = {"protocolVersion": version, "capabilities": {},
                               "clientInfo": dict(CLIENT_INFO)}
    return driver.request("initialize", params).response


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
