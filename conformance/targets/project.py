"""Which project a target is a build of, and the package it installed: each kind says (`kinds/`).

A baseline belongs to a project whatever path or release is run: an npm target is its package's name, a
`cmd:` target the `name` of the package.json nearest above the script it starts (a fork's checkout), when
there is one; the reference server is `reference_server`.
"""

from __future__ import annotations

import json
from pathlib import Path

from conformance.core.identity import TargetIdentity
from conformance.targets.kinds import kind_of
from conformance.targets.specs import Target, split_env


def project_of(identity: TargetIdentity) -> str | None:
    """The target's project name, or None when nothing tells (a `cmd:` line with no package.json)."""
    kind = kind_of(split_env(identity.spec)[1])
    return kind.project(identity) if kind is not None else None


def package_dir_of(target: Target) -> Path | None:
    """The installed package a target runs (with or without environment variables), None when it has none."""
    kind = kind_of(split_env(target.spec)[1])
    return kind.package_dir(target) if kind is not None else None


MANIFEST_BYTES = 1 << 20
"""A package.json larger than this is not read for what it asks of Node.js."""


def node_engines(target: Target) -> str | None:
    """`engines.node` of the package.json the target runs from (a fork's own file: bounded, decoded strictly,
    only that one string taken, cut to 100 characters), None when there is none or it cannot be read."""
    kind = kind_of(split_env(target.spec)[1])
    manifest = kind.manifest(target) if kind is not None else None
    if manifest is None:
        return None
    try:
        with manifest.open("rb") as handle:
            raw = handle.read(MANIFEST_BYTES + 1)
        document = json.loads(raw.decode("utf-8")) if len(raw) <= MANIFEST_BYTES else None
    except (OSError, ValueError, RecursionError):
        return None
    engines = document.get("engines") if isinstance(document, dict) else None
    node = engines.get("node") if isinstance(engines, dict) else None
    if not isinstance(node, str) or not node.strip():
        return None
    return node.strip()[:100]
