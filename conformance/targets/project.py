"""Which project a target is a build of: what a baseline belongs to, whatever path or release is run.

An npm target is its package's name; `cmd:` targets are the `name` of the package.json nearest above
the script they start (a fork's checkout), when there is one; the reference server is `reference_server`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from conformance.core.identity import TargetIdentity
from conformance.targets.specs import Target, split_env

ORIGINAL_PACKAGE: Final = "@modelcontextprotocol/server-sequential-thinking"


def project_of(identity: TargetIdentity) -> str | None:
    """The target's project name, or None when nothing tells (a `cmd:` line with no package.json)."""
    if identity.kind in ("npm", "reference"):
        return identity.package_name
    for part in identity.command[1:]:
        found = _package_name_above(Path(part))
        if found is not None:
            return found
    return None


def _package_name_above(path: Path) -> str | None:
    try:
        resolved = path.resolve()
        if not resolved.is_file():
            return None
    except OSError:
        return None
    for parent in resolved.parents:
        manifest = parent / "package.json"
        if manifest.is_file():
            try:
                name = json.loads(manifest.read_text(encoding="utf-8")).get("name")
            except (OSError, ValueError, AttributeError):
                return None
            return name if isinstance(name, str) and name else None
    return None


def package_dir_of(target: Target) -> Path | None:
    """The installed npm package an `npm:` target runs (with or without environment variables), found by
    walking up from its entry script."""
    if not split_env(target.spec)[1].startswith("npm:"):
        return None
    for part in reversed(target.command):
        path = Path(part)
        if not path.is_absolute() or not path.exists():
            continue
        for parent in [path, *path.parents]:
            manifest = parent / "package.json"
            if manifest.is_file():
                try:
                    name = json.loads(manifest.read_text(encoding="utf-8")).get("name")
                except (OSError, ValueError, AttributeError):
                    continue
                if name == ORIGINAL_PACKAGE:
                    return parent
    return None
