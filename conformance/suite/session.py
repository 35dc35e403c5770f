"""One long-lived server process per target, shared by every test, restarted only when it dies."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from conformance.drivers.errors import ProtocolViolation
from conformance.drivers.sdk import SdkDriver
from conformance.drivers.transcript import Transcript
from conformance.drivers.wire import Exchange, WireDriver
from conformance.jsontypes import JSON, OMIT, Omitted
from conformance.targets.specs import Target

TOOL = "sequentialthinking"
PROTOCOL_VERSION = "2024-11-05"

SESSION_STDERR_LIMIT = 8 << 20
"""Stderr the shared process keeps in memory: each call's bytes are in its Exchange and every byte is in the
transcript on disk, so the harness's memory stays flat however many calls a run makes."""

PROBE_ARGUMENTS: dict[str, JSON] = {
    "thought": "conformance probe",
    "thoughtNumber": 1,
    "totalThoughts": 1,
    "nextThoughtNeeded": False,
}
"""A call every record says is accepted; its answer tells the current store size and branch labels."""


@dataclass(frozen=True)
class StoreState:
    """What an accepted answer reveals about the process-global store (OBJ-4, OBJ-15)."""

    history_length: int
    branches: tuple[str, ...]


def status_of(exchange: Exchange) -> dict[str, JSON]:
    """The status object of an answer (OBJ-4 or OBJ-8): content[0].text parsed as JSON."""
    text = exchange.text
    if text is None:
        raise ProtocolViolation(f"tools/call answer has no text content: {exchange.response!r}")
    parsed = json.loads(text)
    if not isinstance(parsed, dict):
        raise ProtocolViolation(f"tools/call text is not a JSON object: {text!r}")
    return parsed


def state_of(exchange: Exchange) -> StoreState:
    """Read the store state from an accepted answer."""
    status = status_of(exchange)
    length = status["thoughtHistoryLength"]
    branches = status["branches"]
    assert isinstance(length, int) and isinstance(branches, list), status
    return StoreState(length, tuple(str(b) for b in branches))


@dataclass
class ServerSession:
    """The suite's handle on a target: a shared wire driver, fresh processes on demand, an SDK host."""

    target: Target
    transcript: Transcript
    timeout: float = 10.0
    server_info: dict[str, JSON] = field(default_factory=dict)
    protocol_version: str | None = None
    restarts: int = 0
    _wire: WireDriver | None = None

    @property
    def env(self) -> Mapping[str, str]:
        return self.target.env

    def _start(self) -> WireDriver:
        driver = WireDriver(self.target.command, env=self.target.env, timeout=self.timeout,
                            transcript=self.transcript, stderr_limit=SESSION_STDERR_LIMIT)
        driver.start()
        try:
            result = driver.initialize(PROTOCOL_VERSION)
        except BaseException:
            driver.close()
            raise
        info = result.get("serverInfo")
        if isinstance(info, dict):
            self.server_info = info
        version = result.get("protocolVersion")
        self.protocol_version = version if isinstance(version, str) else None
        return driver

    @property
    def wire(self) -> WireDriver:
        """The shared, initialized driver; a dead process is replaced (and counted) before use."""
        if self._wire is not None and not self._wire.is_alive():
            self._wire.close()
            self._wire = None
            self.restarts += 1
        if self._wire is None:
            self._wire = self._start()
        return self._wire

    def call(self, arguments: JSON | Omitted = OMIT, *, name: str = TOOL) -> Exchange:
        return self.wire.call_tool(name, arguments)

    def probe(self) -> StoreState:
        """One accepted call: the state the next call starts from is this plus the probe itself."""
        return state_of(self.call(dict(PROBE_ARGUMENTS)))

    @contextmanager
    def fresh(self, *, env: Mapping[str, str] | None = None) -> Iterator[WireDriver]:
        """A new process for records about a fresh process (startup banner, initial state)."""
        merged = {**self.target.env, **(env or {})}
        with WireDriver(self.target.command, env=merged, timeout=self.timeout,
                        transcript=self.transcript) as driver:
            yield driver

    @contextmanager
    def host(self) -> Iterator[SdkDriver]:
        """A realistic host: the official mcp client session over its stdio client."""
        with SdkDriver(self.target.command, env=self.target.env, timeout=self.timeout) as driver:
            yield driver

    def close(self) -> None:
        if self._wire is not None:
            self._wire.close()
            self._wire = None
