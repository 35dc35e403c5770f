"""Targets: the named ways to start a stdio server under test, each carrying its identity for reports.

`reference` is this project's server, `npm:<version>` an exact release of the TypeScript original
with its dependencies as of its release (installed into a cache by the harness; `npm:<version>@today`
resolves them today), `cmd:<command line>` any fork. Any of them may be prefixed by environment
variables, `KEY=VALUE npm:<version>`, which the server is started with and the identity records.
Every way this can fail is a `TargetError` with a one-line message, which the CLI prints before
exiting with status 2.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import platform
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.drivers.errors import TargetError
from conformance.targets import npm, npm_registry

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
TODAY: Final = "@today"
_ENV_WORD: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(\S*)\s+")
_ENV_PAIR: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(\S*)")


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
    env: dict[str, str] = Field(
        default_factory=dict, description="environment variables the target is started with, beyond ours"
    )
    resolution: Literal["release", "today"] | None = Field(
        default=None, description="npm: dependencies resolved as of the release, or on the day of install"
    )
    resolved_as_of: str | None = Field(
        default=None, description="npm --before cutoff: publish time capped by the next release's"
    )
    installed_at: str | None = None
    sdk_version: str | None = Field(default=None, description="@modelcontextprotocol/sdk as installed")
    zod_version: str | None = Field(default=None, description="zod as the SDK resolves it")
    dependencies: dict[str, str] = Field(
        default_factory=dict,
        description="direct dependencies (and zod) as installed, read back from node_modules",
    )


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


def split_env(spec: str) -> tuple[dict[str, str], str]:
    """`A=1 B=2 npm:0.6.2` → ({"A": "1", "B": "2"}, "npm:0.6.2"); values cannot hold whitespace."""
    env: dict[str, str] = {}
    rest = spec.lstrip()
    while (match := _ENV_WORD.match(rest)) is not None:
        env[match.group(1)] = match.group(2)
        rest = rest[match.end() :]
    return env, rest


def parse_env_pair(text: str) -> tuple[str, str]:
    """One `--env KEY=VALUE`; raises `TargetError` when it is not one."""
    match = _ENV_PAIR.fullmatch(text)
    if match is None:
        raise TargetError(f"--env needs KEY=VALUE (no spaces), not {text!r}")
    return match.group(1), match.group(2)


def with_env(spec: str, env: Mapping[str, str]) -> str:
    """The canonical spec: the spec's own variables and `env` (which wins), sorted, before the target."""
    own, base = split_env(spec)
    merged = {**own, **env}
    return " ".join([*(f"{k}={merged[k]}" for k in sorted(merged)), base])


def folder_name(spec: str) -> str:
    """A report folder's name for a spec, its environment included (`npm-2026.7.4+DISABLE_X-true`)."""
    env, base = split_env(spec)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", base.replace(":", "-", 1).replace(TODAY, "-today")).strip("-")
    suffix = "".join(f"+{re.sub(r'[^A-Za-z0-9._-]+', '-', f'{k}-{env[k]}')}" for k in sorted(env))
    return (stem[:80] or "target") + suffix


def resolve_target(
    spec: str, *, cache_dir: Path | None = None, progress: Callable[[str], None] | None = None
) -> Target:
    """Turn a target spec into something to spawn; raises `TargetError` (one line) when it cannot."""
    env, base = split_env(spec)
    if base == "reference":
        target = _reference()
    elif base.startswith("npm:"):
        target = _npm(base, cache_dir if cache_dir is not None else default_cache_dir(), progress)
    elif base.startswith("cmd:"):
        target = _cmd(base)
    else:
        raise TargetError(
            f"unknown target {base!r}: expected reference, npm:<version> or cmd:<command line>"
        )
    if not env and spec == base:
        return target
    canonical = with_env(base, env)
    return Target(
        canonical,
        target.command,
        target.identity.model_copy(update={"spec": canonical, "env": dict(sorted(env.items()))}),
        MappingProxyType({**target.env, **env}),
    )


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


def release_cutoff(version: str, cache_dir: Path) -> tuple[str, bool]:
    """When `version`'s tree is resolved as of (registry metadata, fetched once into the cache), and
    whether the registry stamped the version itself later than that (then npm must be given its tarball)."""
    cached = npm_registry.metadata_path(cache_dir, npm.PACKAGE).is_file()
    metadata = npm_registry.load_metadata(cache_dir, npm.PACKAGE, None if cached else npm.require_tool("npm"))
    if version not in metadata.versions and cached:  # published since the metadata was cached?
        metadata = npm_registry.load_metadata(cache_dir, npm.PACKAGE, npm.require_tool("npm"), refresh=True)
    if version not in metadata.versions:
        raise TargetError(f"npm has no version {version} of {npm.PACKAGE}")
    moment = npm_registry.cutoff(metadata, version)
    return moment, moment != npm_registry.cutoff(metadata, version, capped=False)


def _npm(spec: str, cache_dir: Path, progress: Callable[[str], None] | None) -> Target:
    requested = spec.removeprefix("npm:")
    today = requested.endswith(TODAY)
    version = npm.check_version(requested.removesuffix(TODAY))
    before, by_tarball = (None, False) if today else release_cutoff(version, cache_dir)
    root, manifest = npm.ensure_installed(
        version, cache_dir, progress=progress, before=before, by_tarball=by_tarball
    )
    node = npm.require_tool("node")
    tree = npm.resolved_tree(root)
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
        resolution="today" if today else "release",
        resolved_as_of=manifest.before,
        installed_at=manifest.installed_at,
        sdk_version=tree.get(npm.SDK),
        zod_version=tree.get(npm.ZOD),
        dependencies=tree,
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
