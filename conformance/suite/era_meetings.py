"""What a target answers to a client of each era: one process per era, met once, read by every spec check.

The specification's records (kind `spec`) are judged per era: a client of that revision connects as it does
(`core/eras.py`) and asks a few things (the tool list, three calls, ping, an unknown method, a batch, and at
2026-07-28 a request naming a version nobody implements). One fresh process per era answers them all once;
every spec check reads the same `Meeting`, so a run pays a handful of calls per era, not per check.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Final

from conformance.core.eras import AUTO, ERAS, PROTOCOL_VERSION_KEY, Era, era_named
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers.errors import DriverError
from conformance.drivers.wire import WireDriver
from conformance.targets.specs import Target

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

DEFAULT_ERAS: Final = "default"
ALL_ERAS: Final = "all"


def eras_of(option: str | None) -> tuple[Era, ...]:
    """The eras a run meets its target as: `default` (`auto`, the newest revision the target accepts; the
    seed's records are a 2024-11-05 client's already), `all` (the five revisions and `auto`), or a
    comma-separated list of revisions and `auto`. Each costs one server process."""
    chosen = (option or DEFAULT_ERAS).strip()
    if chosen == DEFAULT_ERAS:
        return (AUTO,)
    if chosen == ALL_ERAS:
        return (*ERAS, AUTO)
    return tuple(era_named(name.strip()) for name in chosen.split(",") if name.strip())


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


def meet(target: Target, era: Era, *, timeout: float) -> Meeting:
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


class EraMeetings:
    """Each (target, era) met once per run, on first need; the run holds one (the plugin's run state)."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._met: dict[tuple[str, str], Meeting] = {}
        self._lock = threading.Lock()

    def settled(self, spec: str) -> dict[str, str | None]:
        """Each era `spec` was met as and the revision it settled on (None: none agreed), in meeting order."""
        with self._lock:
            return {name: meeting.negotiated for (met, name), meeting in self._met.items() if met == spec}

    def of(self, target: Target, era: Era) -> Meeting:
        key = (target.spec, era.name)
        with self._lock:
            if key not in self._met:
                self._met[key] = meet(target, era, timeout=self.timeout)
            return self._met[key]
