"""What each npm install was when the harness made it, kept outside the target cache.

The cache can be written by others (a CI cache restored from a shared key, a shared folder), so its own
manifest proves nothing: whoever changes `index.js` can recompute the hashes beside it. The digests an
install is checked against live in a state folder the cache's writer does not own; an install with no
record there is not trusted, and is installed again.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict

from conformance.core.errors import InputError
from conformance.core.inputs import read_model
from conformance.drivers.errors import TargetError
from conformance.targets.npm_registry import write_model

STATE_ENV: Final = "SEQTHINK_CONFORMANCE_STATE"
RECORD_FORMAT: Final = "seqthink-install-record/1"


class InstallRecord(BaseModel):
    """One install's digests as the harness computed them right after npm finished."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: str = RECORD_FORMAT
    install_dir: str
    package_name: str
    requested_version: str
    package_version: str
    entry: str
    entry_sha256: str
    tree_sha256: str
    integrity: str | None
    before: str | None = None


def default_state_dir() -> Path:
    """$SEQTHINK_CONFORMANCE_STATE, else $XDG_STATE_HOME/seqthink-conformance, else
    ~/.local/state/seqthink-conformance: beside the cache, never in it."""
    explicit = os.environ.get(STATE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state"
    return base / "seqthink-conformance"


def state_dir_for(cache_dir: Path) -> Path:
    """The state folder, refused when it lies inside the cache (the cache's writer would own it too)."""
    state = default_state_dir().resolve()
    cache = cache_dir.resolve()
    if state == cache or cache in state.parents:
        raise TargetError(
            f"the install state folder {state} is inside the target cache {cache}: whoever can write the "
            f"cache could rewrite the digests it is checked against; set {STATE_ENV} to a folder outside it"
        )
    return state


def record_path(state: Path, install_dir: Path) -> Path:
    """One file per install folder, named by a digest of its absolute path."""
    key = hashlib.sha256(str(install_dir.resolve()).encode()).hexdigest()[:32]
    return state / "npm-installs" / f"{key}.json"


def read_record(state: Path, install_dir: Path) -> InstallRecord | None:
    """The record of `install_dir`, None when there is none or it cannot be read (then nothing is trusted)."""
    path = record_path(state, install_dir)
    if not path.is_file():
        return None
    try:
        record = read_model(path, InstallRecord, what="install record")
    except InputError:
        return None
    return record if record.install_dir == str(install_dir.resolve()) else None


def write_record(state: Path, record: InstallRecord) -> None:
    """Write the record whole, through a scratch file of this writer's own."""
    write_model(record_path(state, Path(record.install_dir)), record)
