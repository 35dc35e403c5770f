"""`npm:<version>`: an exact release of the TypeScript original, with its dependency tree as of its release
(`@today`: as resolved today), installed into the cache by the harness."""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal

from conformance.core.errors import HarnessError, InputError
from conformance.core.identity import TargetIdentity
from conformance.core.inputs import PACKAGE_BYTES, read_json
from conformance.drivers.errors import TargetError
from conformance.targets import npm, npm_registry
from conformance.targets.kinds.kind import Progress, TargetKind
from conformance.targets.specs import TODAY, Target


class NpmKind(TargetKind):
    prefix = "npm:"
    identity_kind = "npm"
    syntax = "npm:<version>[@today]"
    short_syntax = "npm:<version>"
    note = "npm:<version> installs the dependency tree as of its release, @today today's"

    def check(self, base: str) -> None:
        npm.check_version(base.removeprefix(self.prefix).removesuffix(TODAY))

    def resolve(self, base: str, cache_dir: Path, progress: Progress | None) -> Target:
        requested = base.removeprefix(self.prefix)
        today = requested.endswith(TODAY)
        version = npm.check_version(requested.removesuffix(TODAY))
        before, by_tarball = (None, False) if today else release_cutoff(version, cache_dir)
        root, manifest = npm.ensure_installed(
            version, cache_dir, progress=progress, before=before, by_tarball=by_tarball
        )
        return installed_target(base, root, manifest, "today" if today else "release")

    def package_dir(self, target: Target) -> Path | None:
        """Found by walking up from the entry script to the original's package.json."""
        for part in reversed(target.command):
            path = Path(part)
            if not path.is_absolute() or not path.exists():
                continue
            for parent in [path, *path.parents]:
                manifest = parent / "package.json"
                if manifest.is_file():
                    try:
                        meta = read_json(manifest, what="package.json", limit=PACKAGE_BYTES)
                    except InputError:
                        continue
                    if isinstance(meta, dict) and meta.get("name") == npm.PACKAGE:
                        return parent
        return None

    def label(self, base: str) -> str:
        return base.removeprefix(self.prefix)

    def spec(self, version: str) -> str:
        """The spec of a published release."""
        return f"{self.prefix}{version}"

    def release(self, base: str) -> str | None:
        """The release `base` names (`@today` or not), None when it is not an npm spec."""
        return base.removeprefix(self.prefix).removesuffix(TODAY) if self.matches(base) else None


def installed_target(
    spec: str, root: Path, manifest: npm.InstalledPackage, resolution: Literal["release", "today"]
) -> Target:
    """The target that runs an installed cache folder, its identity read back from the install."""
    node = npm.require_tool("node")
    tree = npm.resolved_tree(root)
    command = (node, str(root / manifest.entry))
    identity = TargetIdentity(
        spec=spec,
        kind="npm",
        command=list(command),
        package_name=manifest.package_name,
        package_version=manifest.package_version,
        entry_sha256=manifest.entry_sha256,
        node_version=npm.node_version(node),
        tree_sha256=manifest.tree_sha256,
        integrity=manifest.integrity,
        resolution=resolution,
        resolved_as_of=manifest.before,
        installed_at=manifest.installed_at,
        sdk_version=tree.get(npm.SDK),
        zod_version=tree.get(npm.ZOD),
        dependencies=tree,
    )
    return Target(spec, command, identity)


def adopt(spec: str, cache_dir: Path) -> Target:
    """`install --adopt`: the install of `spec` already in the cache, recorded as this user's own."""
    base = spec.removeprefix(KIND.prefix)
    today = base.endswith(TODAY)
    version = npm.check_version(base.removesuffix(TODAY))
    before = None if today else release_cutoff(version, cache_dir)[0]
    root = npm.install_dir(cache_dir, version, npm.PACKAGE, before)
    manifest = npm.adopt(root, version, npm.PACKAGE, before)
    return installed_target(spec, root, manifest, "today" if today else "release")


def installed_release(version: str, cache_dir: Path) -> Target | None:
    """`npm:<version>` when the cache already holds its release-day tree intact, else None: never runs npm
    (a report asks this at the end of a run, where an install has no place)."""
    try:
        path = npm_registry.metadata_path(cache_dir, npm.PACKAGE)
        if not path.is_file():
            return None
        metadata = npm_registry.load_metadata(cache_dir, npm.PACKAGE, None)
        if version not in metadata.versions:
            return None
        before = npm_registry.cutoff(metadata, version)
        root = npm.install_dir(cache_dir, version, npm.PACKAGE, before)
        manifest, _ = npm.verify(root, version, npm.PACKAGE, before)
        if manifest is None:
            return None
        return installed_target(KIND.spec(version), root, manifest, "release")
    except (HarnessError, OSError):
        return None


def release_cutoff(version: str, cache_dir: Path) -> tuple[str, bool]:
    """When `version`'s tree is resolved as of (registry metadata, fetched once into the cache), and
    whether the registry stamped the version itself later than that (then npm must be given its tarball)."""
    cached = npm_registry.metadata_path(cache_dir, npm.PACKAGE).is_file()
    metadata = npm_registry.load_metadata(cache_dir, npm.PACKAGE, None if cached else npm.require_tool("npm"))
    if version not in metadata.versions and cached:  # published since the metadata was cached?
        metadata = npm_registry.load_metadata(cache_dir, npm.PACKAGE, npm.require_tool("npm"), refresh=True)
    if version not in metadata.versions:
        raise TargetError(f"npm has no version {version} of {npm.PACKAGE}")
    moment = npm_registry.cutoff(metadata, version)
    return moment, moment != npm_registry.cutoff(metadata, version, capped=False)


KIND: Final = NpmKind()
