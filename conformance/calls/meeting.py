"""What a target answers to a client of each era: one fresh process per era, met once, a few requests.

A client of that revision connects as it does (`core/eras.py`) and asks the tool list, three calls, ping, an
unknown method, a batch, and at 2026-07-28 a request naming a version nobody implements. The suite's spec
checks (`suite/spec_checks.py`) read one `Meeting` per era; `compare` meets both sides per era with the same
code (`compare/eras.py`), so the two never disagree on how an era's client speaks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Protocol

from conformance.core.eras import PROTOCOL_VERSION_KEY, Era
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers.errors import DriverError
from conformance.drivers.wire import WireDriver


class Spawnable(Protocol):
    """What a meeting needs of a target: the command that starts it and its environment (a `Target`)."""

    @property
    def command(self) -> tuple[str, ...]: ...

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
    batch_frames: list[JSON] = field(default_factory=list)
    """Every frame that came back between a batch of two pings and the ping sent after it."""
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

    def label(self) -> str:
        settled = self.negotiated or "no revision agreed"
        return f"{self.era.name} client, settled on {settled}"


def meet(target: Spawnable, era: Era, *, timeout: float) -> Meeting:
    """Connect to a fresh process of `target` as `era`'s client and ask what every spec check (and compare's
    era pass) reads."""
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
                assert isinstance(meta, dict)
                meta[PROTOCOL_VERSION_KEY] = UNIMPLEMENTED_VERSION
                meeting.unimplemented_version = driver.request("tools/list", params).response
            meeting.batch_frames = _batch(driver, era)
    except DriverError as exc:
        meeting.failure = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    return meeting


def _batch(driver: WireDriver, era: Era) -> list[JSON]:
    """Send a batch array of two pings and a ping after it; the frames read before that ping's answer."""
    params: dict[str, JSON] = {"params": era.stamped(None)} if driver.stateless else {}
    pings = [{"jsonrpc": "2.0", "id": request_id, "method": "ping", **params}
             for request_id in (*BATCH_IDS, AFTER_BATCH_ID)]
    batch, after = pings[:2], pings[2]
    driver.send_raw((json.dumps(batch) + "\n" + json.dumps(after) + "\n").encode())
    frames: list[JSON] = []
    while True:
        frame: JSON = json.loads(driver.read_frame())
        if isinstance(frame, dict) and frame.get("id") == AFTER_BATCH_ID:
            return frames
        frames.append(frame)
