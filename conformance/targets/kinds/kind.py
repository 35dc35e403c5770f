"""What every target kind says about itself: its spec syntax, how a spec of it starts a server, which
identity a report gives it, and which project it is a build of. Each kind is one module beside this one,
listed once in `__init__.py`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from conformance.core.identity import IdentityKind, TargetIdentity
from conformance.targets.specs import Target

Progress = Callable[[str], None]


class TargetKind(ABC):
    """One way to name a server under test: `prefix` (`npm:`) or a whole name (`reference`)."""

    prefix: ClassVar[str]
    """How a spec of this kind starts; a prefix ends with `:`, anything else is the whole spec."""
    identity_kind: ClassVar[IdentityKind]
    """The `kind` a report's target identity gives it."""
    syntax: ClassVar[str]
    """As the command line's help and errors show it (`npm:<version>[@today]`)."""
    short_syntax: ClassVar[str]
    """Without the options (`npm:<version>`), where the help lists the kinds briefly."""
    note: ClassVar[str] = ""
    """A clause the `run --target` help adds about this kind, if any."""

    def matches(self, base: str) -> bool:
        """Whether `base` (a spec without its environment variables) is of this kind."""
        return base.startswith(self.prefix) if self.prefix.endswith(":") else base == self.prefix

    def check(self, base: str) -> None:
        """Refuse (`TargetError`, one line) a spec of this kind whose syntax alone is wrong, before anything
        is resolved: the command line answers it as a bad option value."""
        return None  # most kinds' syntax is their prefix alone

    @abstractmethod
    def resolve(self, base: str, cache_dir: Path, progress: Progress | None) -> Target:
        """Something to spawn for `base` (installed first if it must be); raises `TargetError` (one line)."""

    def unresolved(self, base: str) -> TargetIdentity:
        """The identity of a target that could not be resolved: what the spec alone tells."""
        return TargetIdentity(spec=base, kind=self.identity_kind, command=[])

    def project(self, identity: TargetIdentity) -> str | None:
        """Which project the target is a build of (what a baseline belongs to); None when nothing tells."""
        return identity.package_name

    def package_dir(self, target: Target) -> Path | None:
        """The installed package the target runs (for checks of its files); None when the kind has none."""
        return None

    def manifest(self, target: Target) -> Path | None:
        """The package.json of what the target runs (what it asks of Node.js); None when it has none."""
        found = self.package_dir(target)
        return found / "package.json" if found is not None else None

    def missing_path(self, target: Target, said: str) -> str | None:
        """When the target would not start because a file its command names does not exist (`said` is what the
        harness and the server said about it), which path, resolved, and against what; None otherwise."""
        return None

    def label(self, base: str) -> str:
        """A short name for an atlas column."""
        return base[:40]
