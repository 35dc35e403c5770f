"""Targets: the named ways to start a stdio server under test, each carrying its identity for reports.

A spec names a kind (`kinds/`: `reference` this project's server, `npm:<version>` an exact release of the
TypeScript original, `cmd:<command line>` any fork) and may be prefixed by environment variables,
`KEY=VALUE npm:<version>`, which the server is started with and the identity records. Every way this can
fail is a `TargetError` with a one-line message, which the CLI prints before exiting with status 2.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from conformance.core.identity import TargetIdentity
from conformance.drivers.errors import TargetError
from conformance.drivers.lateness import Lateness

if TYPE_CHECKING:
    from conformance.drivers.sdk import SdkDriver
    from conformance.drivers.transcript import Transcript
    from conformance.drivers.wire import WireDriver

CACHE_ENV: Final = "SEQTHINK_CONFORMANCE_CACHE"
# chalk colours the TS server's stderr box when FORCE_COLOR is set (the reference server ports that rule);
# hosts spawn servers on pipes, without colour, and a CI runner's FORCE_COLOR must not change what the
# suite observes. Tests about colour set it themselves.
SPAWN_ENV: Final[Mapping[str, str]] = MappingProxyType({"FORCE_COLOR": "0"})
TODAY: Final = "@today"
_ENV_WORD: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(\S*)\s+")
_ENV_PAIR: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(\S*)")

@dataclass(frozen=True)
class Target:
    """A resolved target: the command to spawn, extra environment merged over ours, and its identity."""

    spec: str
    command: tuple[str, ...]
    identity: TargetIdentity
    env: Mapping[str, str] = field(default_factory=lambda: SPAWN_ENV)
    renames: Mapping[str, str] = field(default_factory=dict)
    """`--arguments-map`: the original's argument names as this server spells them, in every call sent."""
    lateness: Lateness = field(default_factory=Lateness, compare=False, repr=False)
    """What the run learned about its processes' late stderr, handed to every driver made for it: one per
    resolved target, kept by `dataclasses.replace`, shared by a run's preflight, suite and replays
    (`Handover.lateness`), never carried into another run."""

    def wire(self, *, timeout: float = 10.0, transcript: Transcript | None = None) -> WireDriver:
        """A (not yet started) wire driver for this target; use it as a context manager."""
        from conformance.drivers.wire import WireDriver

        return WireDriver(self.command, env=self.env, timeout=timeout, transcript=transcript,
                          renames=self.renames, lateness=self.lateness)

    def sdk(self, *, timeout: float = 10.0) -> SdkDriver:
        """A (not yet started) SDK driver for this target; use it as a context manager."""
        from conformance.drivers.sdk import SdkDriver

        return SdkDriver(self.command, env=self.env, timeout=timeout, renames=self.renames,
                         strays=self.lateness.strays)


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
    """A report folder's name for a spec, its environment included (`npm-2026.7.4+DISABLE_X-true`); a
    longer one (a target over 80 characters, or with its environment over 120) keeps its start and ends in
    a digest of the whole spec: bounded, and still distinct."""
    env, base = split_env(spec)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", base.replace(":", "-", 1).replace(TODAY, "-today")).strip("-")
    suffix = "".join(f"+{re.sub(r'[^A-Za-z0-9._-]+', '-', f'{k}-{env[k]}')}" for k in sorted(env))
    name = (stem if stem.strip(".") else "target") + suffix  # "." and ".." name a folder already there
    if len(stem) <= 80 and len(name) <= 120:
        return name
    return name[:79] + "-" + hashlib.sha256(spec.encode()).hexdigest()[:16]


def resolve_target(
    spec: str, *, cache_dir: Path | None = None, progress: Callable[[str], None] | None = None
) -> Target:
    """Turn a target spec into something to spawn; raises `TargetError` (one line) when it cannot."""
    from conformance.targets.kinds import kind_of, one_of, syntaxes  # the kinds build on this module

    env, base = split_env(spec)
    kind = kind_of(base)
    if kind is None:
        raise TargetError(f"unknown target {base!r}: expected {one_of(syntaxes(short=True))}")
    target = kind.resolve(base, cache_dir if cache_dir is not None else default_cache_dir(), progress)
    if not env and spec == base:
        return target
    canonical = with_env(base, env)
    return Target(
        canonical,
        target.command,
        target.identity.model_copy(update={"spec": canonical, "env": dict(sorted(env.items()))}),
        MappingProxyType({**target.env, **env}),
    )
