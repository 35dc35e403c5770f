"""Which project a target is a build of, and the package it installed: each kind says (`kinds/`).

A baseline belongs to a project whatever path or release is run: an npm target is its package's name, a
`cmd:` target the `name` of the package.json nearest above the script it starts (a fork's checkout), when
there is one; the reference server is `reference_server`.
"""

from __future__ import annotations

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
