"""Published versions and their release times, from the npm registry once, then from the cache.

A release's dependency tree is resolved as of its *cutoff*: its publish time, capped by the next
version's publish time, because the registry re-stamped some old versions with later times (the
metadata says 2025.11.25 was published in August 2026, eight months after 2025.12.18). docs/atlas.md
gives the evidence.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict

from conformance.core.errors import InputError
from conformance.core.inputs import parse_json, read_model
from conformance.drivers.errors import TargetError

METADATA: Final = "registry.json"
VIEW_TIMEOUT: Final = 120.0
_RELEASE: Final = re.compile(r"\d+\.\d+\.\d+")


class RegistryMetadata(BaseModel):
    """The part of a package's registry document the harness uses, as cached."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    package: str
    fetched_at: str
    versions: list[str]
    time: dict[str, str]


def version_key(version: str) -> tuple[int, ...]:
    """Numeric order of an exact release version (x.y.z, no pre-release)."""
    return tuple(int(part) for part in version.split(".")[:3])


def releases(metadata: RegistryMetadata) -> list[str]:
    """Published releases (no pre-releases), oldest version first."""
    return sorted((v for v in metadata.versions if _RELEASE.fullmatch(v)), key=version_key)


def _parse_time(text: str) -> dt.datetime:
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise TargetError(f"registry metadata has an unreadable time {text!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def cutoff(metadata: RegistryMetadata, version: str, *, capped: bool = True) -> str:
    """The moment `version`'s tree is resolved as of: its publish time, capped by the next release's."""
    if version not in metadata.time:
        raise TargetError(f"the registry lists no publish time for {metadata.package}@{version}")
    moment = _parse_time(metadata.time[version])
    ordered = releases(metadata)
    if capped and version in ordered:
        later = ordered[ordered.index(version) + 1 :]
        if later and later[0] in metadata.time:
            moment = min(moment, _parse_time(metadata.time[later[0]]))
    return moment.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def metadata_path(cache_dir: Path, package: str) -> Path:
    return cache_dir / "npm" / package.replace("/", "__") / METADATA


def _fetch(npm: str, package: str) -> RegistryMetadata:
    try:
        done = subprocess.run(
            [npm, "view", package, "versions", "time", "--json"],
            capture_output=True,
            text=True,
            timeout=VIEW_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise TargetError(f"cannot ask the npm registry about {package}: {exc}") from None
    if done.returncode != 0:
        raise TargetError(f"cannot read the npm registry's metadata of {package} (npm view failed)")
    try:
        document = parse_json(done.stdout, f"the answer of npm view {package}")
    except InputError as exc:
        raise TargetError(str(exc)) from None
    versions = document.get("versions") if isinstance(document, dict) else None
    times = document.get("time") if isinstance(document, dict) else None
    if isinstance(versions, str):
        versions = [versions]
    if not isinstance(versions, list) or not isinstance(times, dict):
        raise TargetError(f"npm view {package} answered no versions or no times")
    return RegistryMetadata(
        package=package,
        fetched_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        versions=[str(v) for v in versions],
        time={str(k): str(v) for k, v in times.items() if k not in ("created", "modified")},
    )


def load_metadata(
    cache_dir: Path, package: str, npm: str | None = None, *, refresh: bool = False
) -> RegistryMetadata:
    """The cached metadata, fetched (with `npm view`) only when absent or when asked to refresh."""
    path = metadata_path(cache_dir, package)
    if not refresh and path.is_file():
        try:
            return read_model(path, RegistryMetadata, what="cached registry metadata")
        except InputError:
            pass
    if npm is None:
        raise TargetError(f"no cached registry metadata for {package} and no npm to fetch it")
    metadata = _fetch(npm, package)
    store_metadata(path, metadata)
    return metadata


def store_metadata(path: Path, metadata: RegistryMetadata) -> None:
    """Write the cache file whole, through a scratch file of this writer's own.

    Installs of several releases of one package run side by side (CI does) and each may fetch the
    metadata: a shared scratch name let one writer move another's file away mid-write.
    """
    write_model(path, metadata)


def write_model(path: Path, model: BaseModel) -> None:
    """`model` as JSON into `path` whole, through a scratch file of this writer's own (a name `mkstemp`
    makes, so writers in threads of one process never share one), renamed over `path` once complete."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    scratch = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(model.model_dump_json(indent=2) + "\n")
        scratch.replace(path)
    except BaseException:
        scratch.unlink(missing_ok=True)
        raise
