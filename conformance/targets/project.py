"""Which project a target is a build of, and the package it installed: each kind says (`kinds/`).

A baseline belongs to a project whatever path or release is run: an npm target is its package's name, a
`cmd:` target the `name` of the package.json nearest above the script it starts (a fork's checkout), when
there is one; the reference server is `reference_server`.
"""

from __future__ import annotations

from pathlib import Path

from conformance.core.errors import InputError
from conformance.core.identity import TargetIdentity
from conformance.core.inputs import PACKAGE_BYTES, read_json
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


def missing_path(target: Target, said: str) -> str | None:
    """A file the target's command names that does not exist, when what was `said` of its start blames it: the
    path resolved against the folder the run started in (`kinds/`), to say in the start failure."""
    kind = kind_of(split_env(target.spec)[1])
    return kind.missing_path(target, said) if kind is not None else None


def node_engines(target: Target) -> str | None:
    """`engines.node` of the package.json the target runs from (a fork's own file, read as bounded data by
    `core/inputs`; only that one string taken, cut to 100 characters), None when there is none or it cannot
    be read."""
    kind = kind_of(split_env(target.spec)[1])
    manifest = kind.manifest(target) if kind is not None else None
    if manifest is None:
        return None
    try:
        document = read_json(manifest, what="package.json", limit=PACKAGE_BYTES)
    except InputError:
        return None
    engines = document.get("engines") if isinstance(document, dict) else None
    node = engines.get("node") if isinstance(engines, dict) else None
    if not isinstance(node, str) or not node.strip():
        return None
    return node.strip()[:100]
