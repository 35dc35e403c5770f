"""Who ran a report: harness version, checkout commit, profile and seed, enough to rerun the same examples."""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path

from conformance.results import HarnessIdentity

DISTRIBUTION = "seqthink-conformance"


def harness_version() -> str:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "0+unknown"


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
