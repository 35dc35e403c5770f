"""Targets: the named ways to start a stdio server under test, each carrying its identity for reports.

`reference` is this project's server, `npm:<version>` an exact release of the TypeScript original
(installed into a cache by the harness), `cmd:<command line>` any fork. Every way this can fail is a
`TargetError` with a one-line message, which the CLI prints before exiting with status 2.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import platform
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Final, Literal

from pydantic import BaseModel, ConfigDict

from conformance.drivers.errors import TargetError
from conformance.targets import npm

if TYPE_CHECKING:
    from conformance.drivers.sdk import SdkDriver
    from conformance.drivers.transcript import Transcript
    from conformance.drivers.wire import WireDriver

CACHE_ENV: Final = "SEQTHINK_CONFORMANCE_CACHE"
DISTRIBUTION: Final = "seqthink-conformance"
# chalk colours the TS server's stderr box when FORCE_COLOR is set (the reference server ports that rule);
# hosts spawn servers on pipes, without colour, and a CI runner's FORCE_COLOR must not change what the
# suite observes. Tests about colour set it themselves.
SPAWN_ENV: Final[Mapping[str, str]] = MappingProxyType({"FORCE_COLOR": "0"})


class TargetIdentity(BaseModel):
    """Exactly what was run, as reports quote it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: str
    kind: Literal["reference", "npm", "cmd"]
    command: list[str]
    package_name: str | None = None
    package_version: str | None = None
    entry_sha256: str | None = None
    node_version: str | None = None
    python_version: str | None = None
    tree_sha256: str | None = None
    integrity: str | None = None


@dataclass(frozen=True)
class Target:
    """A resolved target: the command to spawn, extra environment merged over ours, and its identity."""

    spec: str
    command: tuple[str, ...]
    identity: TargetIdentity
    env: Mapping[str, str] = field(default_factory=lambda: SPAWN_ENV)

    def wire(self, *, timeout: float = 10.0, transcript: Transcript | None = None) -> WireDriver:
        """A (not yet started) wire driver for this target; use it as a context manager."""
        from conformance.drivers.wire import WireDriver

        return WireDriver(self.command, env=self.env, timeout=timeout, transcript=transcript)

    def sdk(self, *, timeout: float = 10.0) -> SdkDriver:
        """A (not yet started) SDK driver for this target; use it as a context manager."""
        from conformance.drivers.sdk import SdkDriver

        return SdkDriver(self.command, env=self.env, timeout=timeout)


def default_cache_dir() -> Path:
    """Where npm installs are cached.

    $SEQTHINK_CONFORMANCE_CACHE, else $XDG_CACHE_HOME/seqthink-conformance,
    else ~/.cache/seqthink-conformance.
    """
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "seqthink-conformance"


def resolve_target(
    spec: str, *, cache_dir: Path | None = None, progress: Callable[[str], None] | None = None
) -> Target:
    """Turn a target spec into something to spawn; raises `TargetError` (one line) when it cannot."""
    if spec == "reference":
        return _reference()
    if spec.startswith("npm:"):
        return _npm(spec, cache_dir if cache_dir is not None else default_cache_dir(), progress)
    if spec.startswith("cmd:"):
        return _cmd(spec)
    raise TargetError(f"unknown target {spec!r}: expected reference, npm:<version> or cmd:<command line>")


def _reference() -> Target:
    try:
        main_spec = importlib.util.find_spec("reference_server.__main__")
    except (ImportError, ValueError):
        main_spec = None
    if main_spec is None or main_spec.origin is None:
        raise TargetError("reference server not available yet")
    package_root = Path(main_spec.origin).parent
    try:
        version: str | None = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = None
    command = (sys.executable, "-m", "reference_server")
    identity = TargetIdentity(
        spec="reference",
        kind="reference",
        command=list(command),
        package_name="reference_server",
        package_version=version,
        entry_sha256=npm.file_sha256(Path(main_spec.origin)),
        python_version=platform.python_version(),
        tree_sha256=_source_digest(package_root),
    )
    return Target("reference", command, identity)


def _source_digest(package_root: Path) -> str:
    """Digest of the reference server's own files (not caches), so a report pins the code that ran."""
    digest = hashlib.sha256()
    for path in sorted(package_root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            digest.update(str(path.relative_to(package_root)).encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _npm(spec: str, cache_dir: Path, progress: Callable[[str], None] | None) -> Target:
    version = npm.check_version(spec.removeprefix("npm:"))
    root, manifest = npm.ensure_installed(version, cache_dir, progress=progress)
    node = npm.require_tool("node")
    command = (node, str(root / manifest.entry))
    identity = TargetIdentity(
        spec=spec,
        kind="npm",
        command=list(command),
        package_name=manifest.package_name,
        package_version=manifest.package_version,
        entry_sha256=manifest.entry_sha256,
        node_version=npm.node_version(node),
        tree_sha256=manifest.tree_sha256,
        integrity=manifest.integrity,
    )
    return Target(spec, command, identity)


def _cmd(spec: str) -> Target:
    line = spec.removeprefix("cmd:")
    try:
        argv = shlex.split(line)
    except ValueError as exc:
        raise TargetError(f"cannot parse the command line {line!r}: {exc}") from None
    if not argv:
        raise TargetError("cmd: target needs a command line, e.g. cmd:node dist/index.js")
    program = argv[0]
    found = os.access(program, os.X_OK) if os.sep in program else shutil.which(program) is not None
    if not found:
        raise TargetError(f"command not found or not executable: {program}")
    identity = TargetIdentity(spec=spec, kind="cmd", command=argv)
    return Target(spec, tuple(argv), identity)
