"""`reference`: this project's server, run with this interpreter."""

from __future__ import annotations

import hashlib
import importlib.util
import platform
import sys
from pathlib import Path
from typing import Final

from conformance.core.identity import TargetIdentity, harness_version
from conformance.drivers.errors import TargetError
from conformance.targets import npm
from conformance.targets.kinds.kind import Progress, TargetKind
from conformance.targets.specs import Target


class ReferenceKind(TargetKind):
    prefix = "reference"
    identity_kind = "reference"
    syntax = short_syntax = "reference"

    def resolve(self, base: str, cache_dir: Path, progress: Progress | None) -> Target:
        try:
            main_spec = importlib.util.find_spec("reference_server.__main__")
        except (ImportError, ValueError):
            main_spec = None
        if main_spec is None or main_spec.origin is None:
            raise TargetError("reference server not available yet")
        package_root = Path(main_spec.origin).parent
        version = harness_version()  # the reference server ships in the harness's distribution
        command = (sys.executable, "-m", "reference_server")
        identity = TargetIdentity(
            spec="reference",
            kind="reference",
            command=list(command),
            package_name="reference_server",
            package_version=version,
            entry_sha256=npm.file_sha256(Path(main_spec.origin)),
            python_version=platform.python_version(),
            tree_sha256=_source_digest(package_root),
        )
        return Target("reference", command, identity)


def _source_digest(package_root: Path) -> str:
    """Digest of the reference server's own files (not caches), so a report pins the code that ran."""
    digest = hashlib.sha256()
    for path in sorted(package_root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            digest.update(str(path.relative_to(package_root)).encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


KIND: Final = ReferenceKind()
