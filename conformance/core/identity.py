"""Who ran and what was run: a target's exact identity as reports quote it, and the harness's own (version,
checkout commit, profile and seed: enough to rerun the same examples)."""

from __future__ import annotations

import json
import platform
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from conformance import __version__

MAX_SHARDS: Final = 64
"""More shards than this would leave most of them without a test (a run has about 130)."""

def info_texts(info: Mapping[Any, object]) -> dict[str, str]:
    """A serverInfo object as reports quote it, field by field: a string as it is, anything else (an `icons`
    list, a number) as JSON, never a Python repr (levalicious-ts's `icons=[{'src': …}]`)."""
    return {str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True,
                                                            default=str)
            for k, v in info.items()}


IdentityKind = Literal["reference", "npm", "cmd"]
"""What a report may say a target is; a new target kind reports as one of these."""


class TargetIdentity(BaseModel):
    """Exactly what was run, as reports quote it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: str
    kind: IdentityKind
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


class ShardIdentity(BaseModel):
    """Which part of a run a report holds: shard `index` of `count` (`run --shard I/N`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=1, le=MAX_SHARDS)
    count: int = Field(ge=1, le=MAX_SHARDS)

    @model_validator(mode="after")
    def _within(self) -> ShardIdentity:
        if self.index > self.count:
            raise ValueError(f"shard {self.index} of {self.count} does not exist")
        return self

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> ShardIdentity:
    """`I/N` with 1 <= I <= N <= MAX_SHARDS; ValueError saying what is wrong otherwise."""
    found = re.fullmatch(r"([0-9]{1,6})/([0-9]{1,6})", text)
    if found is None:
        raise ValueError(f"expected I/N, e.g. 1/4, not {text[:40]!r}")
    i, n = int(found[1]), int(found[2])
    if not 1 <= n <= MAX_SHARDS:
        raise ValueError(f"N must be 1 to {MAX_SHARDS}")
    if not 1 <= i <= n:
        raise ValueError(f"I must be 1 to N ({n})")
    return ShardIdentity(index=i, count=n)


class HarnessIdentity(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str
    git_commit: str | None
    profile: str
    seed: str | None
    python: str
    shard: ShardIdentity | None = Field(
        default=None, description="set when this is one shard of a run (`run --shard I/N`)"
    )


def harness_version() -> str:
    """`conformance.__version__`, not the installed metadata, which an editable install keeps stale."""
    return __version__


def git_commit() -> str | None:
    """The checkout's HEAD when the harness runs from a git clone, else None."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    commit = out.stdout.strip()
    return commit if out.returncode == 0 and len(commit) == 40 else None


def harness_identity(
    *, profile: str, seed: str | None, shard: ShardIdentity | None = None
) -> HarnessIdentity:
    return HarnessIdentity(version=harness_version(), git_commit=git_commit(), profile=profile, seed=seed,
                           python=platform.python_version(), shard=shard)
