"""Who ran and what was run: a target's exact identity as reports quote it, and the harness's own (version,
checkout commit, profile and seed: enough to rerun the same examples)."""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance import __version__

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


class HarnessIdentity(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str
    git_commit: str | None
    profile: str
    seed: str | None
    python: str


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


def harness_identity(*, profile: str, seed: str | None) -> HarnessIdentity:
    return HarnessIdentity(version=harness_version(), git_commit=git_commit(), profile=profile, seed=seed,
                           python=platform.python_version())
