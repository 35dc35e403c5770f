"""The clients a server meets: one value per protocol revision and the way its client connects.

MCP has five revisions in use at once. Up to 2025-11-25 a client opens with `initialize`, offering its
revision; a 2026-07-28 client never initializes: it may ask `server/discover`, and every request carries
the revision and its capabilities in `_meta`. The official SDK clients connect in `auto`: they probe
`server/discover` at the newest revision and fall back to `initialize` at the newest handshake revision.
Drivers take an `Era` and connect as that client does; nothing else decides how a connection opens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from conformance.core.jsontypes import JSON
from conformance.core.protocol import CLIENT_INFO

REVISIONS: Final[tuple[str, ...]] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
"""Every revision in use, oldest first (`mcp_types.version.KNOWN_PROTOCOL_VERSIONS` at mcp 2.3)."""

HANDSHAKE_REVISIONS: Final[tuple[str, ...]] = REVISIONS[:4]
"""The revisions a client opens with `initialize`."""

LATEST_HANDSHAKE: Final = HANDSHAKE_REVISIONS[-1]
STATELESS_REVISION: Final = REVISIONS[-1]

@dataclass(frozen=True)
class RefusedOffer:
    """An initialize refused for the version it offered, and the version offered next that was accepted."""

    offered: str
    error: Mapping[str, JSON]
    """The JSON-RPC error it was answered with."""
    accepted: str

    def said(self) -> str:
        """The refusal in the server's own words and what the client did next, in a line."""
        code, message = self.error.get("code"), self.error.get("message")
        words = f" “{' '.join(str(message).split())[:200]}”" if isinstance(message, str) else ""
        return (f"initialize offering {self.offered} was refused, error {code}{words}, where a server "
                f"answers a version it supports; {self.accepted}, offered next, was accepted")


def offered_next(refused: str) -> tuple[str, ...]:
    """The handshake revisions a client offers once `refused` was answered with an error, newest first: a
    server that refuses a version it does not support, where the specification has it answer one it does
    (SPEC-1), is still met at the newest it accepts, and the refusal said as a finding."""
    return tuple(version for version in reversed(HANDSHAKE_REVISIONS) if version != refused)


PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY: Final = "io.modelcontextprotocol/clientInfo"
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
METHOD_NOT_FOUND: Final = -32601

Connects = Literal["initialize", "stateless", "auto"]


@dataclass(frozen=True)
class Era:
    """A revision and how its client connects: `initialize` offering it, stateless, or the SDK's probe."""

    name: str
    connects: Connects
    revision: str
    """The revision the client offers first (for `auto`, the one its `server/discover` probe carries)."""

    @property
    def stateless(self) -> bool:
        return self.connects == "stateless"

    def envelope(self) -> dict[str, JSON]:
        """The `_meta` a 2026-07-28 client puts on every request: its revision, capabilities and identity."""
        return {
            PROTOCOL_VERSION_KEY: self.revision,
            CLIENT_CAPABILITIES_KEY: {},
            CLIENT_INFO_KEY: dict(CLIENT_INFO),
        }

    def stamped(self, params: Mapping[str, JSON] | None) -> dict[str, JSON]:
        """`params` with this era's `_meta` envelope merged in (unchanged but copied for a handshake era;
        `auto` stamps what its probe and, once the server listed 2026-07-28, its requests carry)."""
        out: dict[str, JSON] = dict(params or {})
        if self.connects == "initialize":
            return out
        meta = out.get("_meta")
        out["_meta"] = {**(meta if isinstance(meta, dict) else {}), **self.envelope()}
        return out


ERAS: Final[tuple[Era, ...]] = (
    *(Era(revision, "initialize", revision) for revision in HANDSHAKE_REVISIONS),
    Era(STATELESS_REVISION, "stateless", STATELESS_REVISION),
)
"""One client per revision, oldest first."""

STATELESS: Final = ERAS[-1]
"""A 2026-07-28 client: no `initialize`, `server/discover`, the envelope on every request."""

AUTO: Final = Era("auto", "auto", STATELESS_REVISION)
"""The official SDK client's `mode='auto'`: `server/discover` at 2026-07-28, else `initialize`, 2025-11-25."""

LEGACY: Final = ERAS[0]
"""The original's own client (SDK 0.5.0, 2024-11-05): the era the records describe."""

ERA_NAMES: Final[tuple[str, ...]] = (*(era.name for era in ERAS), AUTO.name)


def era_named(name: str) -> Era:
    """The era called `name` (a revision or `auto`); `KeyError` when there is none."""
    for era in (*ERAS, AUTO):
        if era.name == name:
            return era
    raise KeyError(name)



def era_of_test(nodeid: str) -> str | None:
    """The era a spec test ran with: its id's last parameter (`test_x[npm:2026.8.31-2025-03-26]`)."""
    for name in ERA_NAMES:
        if nodeid.endswith((f"-{name}]", f"[{name}]")):
            return name
    return None
