"""Installing an exact version of the TypeScript server with npm into a per-version cache folder.

An install happens in a temporary folder that is renamed into place only when complete (a Ctrl-C
never leaves half a cache), under a file lock (parallel workers install once). The package npm fetched
must carry the registry's own sha512 integrity, and the install's digests are recorded in the state
folder outside the cache (`npm_state.py`), against which the install is checked every time it is reused.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict

from conformance.core.errors import InputError, NoSpaceError
from conformance.core.inputs import DATA_BYTES, PACKAGE_BYTES, read_json, read_model
from conformance.drivers.errors import TargetError
from conformance.targets import npm_state

PACKAGE: Final = "@modelcontextprotocol/server-sequential-thinking"
MANIFEST: Final = "seqthink-install.json"
INSTALL_TIMEOUT: Final = 600.0
LOCK_TIMEOUT: Final = 900.0
_EXACT_VERSION: Final = re.compile(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?")

Progress = Callable[[str], None]


class InstalledPackage(BaseModel):
    """What an install recorded about itself (the cache folder's manifest)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    package_name: str
    requested_version: str
    package_version: str
    entry: str
    entry_sha256: str
    tree_sha256: str
    integrity: str | None
    node_version: str
    installed_at: str
    before: str | None = None


def _silent(message: str) -> None:
    pass


def check_version(version: str) -> str:
    """Only exact versions: a range or tag would make the identity of a run depend on the day."""
    if not _EXACT_VERSION.fullmatch(version):
        raise TargetError(f"npm target needs an exact version like npm:0.6.2, not {version!r}")
    return version


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise TargetError(f"npm targets need Node.js and npm on PATH, and `{name}` was not found")
    return path


def node_version(node: str) -> str:
    try:
        done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        raise TargetError(f"cannot run `{node} --version`: {exc}") from None
    return done.stdout.strip()


def package_dir(root: Path, package: str = PACKAGE) -> Path:
    return root / "node_modules" / package


def install_dir(
    cache_dir: Path, version: str, package: str = PACKAGE, before: str | None = None,
    overrides: Mapping[str, Pin] | None = None,
) -> Path:
    """`<version>` holds the tree of the day it was installed, `<version>@<cutoff>` the tree as of then;
    `+pins-<hash>` a tree with some dependencies pinned (npm `overrides`: a one-dependency swap)."""
    folder = check_version(version)
    if before is not None:
        folder += "@" + re.sub(r"[^0-9T]", "", before.split(".")[0].split("+")[0]) + "Z"
    if overrides:
        digest = hashlib.sha256(json.dumps(dict(sorted(overrides.items()))).encode()).hexdigest()[:12]
        folder += f"+pins-{digest}"
    return cache_dir / "npm" / package.replace("/", "__") / folder


def _resolve_from(start: Path, root: Path, name: str) -> Path | None:
    """Node's lookup of `name` from the package folder `start`: nearest node_modules upwards within root."""
    here = start
    while True:
        candidate = here / "node_modules" / name / "package.json"
        if candidate.is_file():
            return candidate
        if here == root or root not in here.parents:
            return None
        here = here.parent


def _version_at(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        meta = read_json(path, what="package.json", limit=PACKAGE_BYTES)
    except InputError:
        return None
    version = meta.get("version") if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


SDK: Final = "@modelcontextprotocol/sdk"
ZOD: Final = "zod"


def resolved_tree(root: Path, package: str = PACKAGE) -> dict[str, str]:
    """The versions node will load, read back from node_modules: the package's direct dependencies, and
    zod as the SDK resolves it (from 2025.11.25 the server does not declare zod; its schemas are zod's)."""
    pkg_dir = package_dir(root, package)
    try:
        meta = read_json(pkg_dir / "package.json", what="package.json", limit=PACKAGE_BYTES)
    except InputError:
        return {}
    declared = meta.get("dependencies") if isinstance(meta, dict) else None
    tree: dict[str, str] = {}
    for name in sorted(declared if isinstance(declared, dict) else {}):
        version = _version_at(_resolve_from(pkg_dir, root, name))
        if version is not None:
            tree[name] = version
    if ZOD not in tree:
        sdk = _resolve_from(pkg_dir, root, SDK)
        zod = _version_at(_resolve_from(sdk.parent, root, ZOD) if sdk is not None else None)
        if zod is not None:
            tree[ZOD] = zod
    return tree


def locked_tree(root: Path, package: str = PACKAGE) -> dict[str, str]:
    """Every package the install's lockfile holds, by its place in node_modules (`express` for
    node_modules/express, `body-parser/content-type` for a copy nested under body-parser), to its version;
    the server's own package left out. Empty when the lockfile cannot be read."""
    try:
        lock = read_json(root / "package-lock.json", what="package-lock.json", limit=DATA_BYTES)
    except InputError:
        return {}
    packages = lock.get("packages") if isinstance(lock, dict) else None
    tree: dict[str, str] = {}
    for path, entry in (packages.items() if isinstance(packages, dict) else ()):
        if not path.startswith("node_modules/") or not isinstance(entry, dict):
            continue
        version = entry.get("version")
        place = "/".join(part for part in path.removeprefix("node_modules/").split("/node_modules/"))
        if isinstance(version, str) and place != package:
            tree[place] = version
    return dict(sorted(tree.items()))


Pin = str | dict[str, str]
"""One npm `overrides` entry: a version, or a parent's own version (".") and its nested copies'."""


def tree_pins(tree: Mapping[str, str]) -> dict[str, Pin]:
    """npm `overrides` that pin a whole locked tree (`locked_tree`): each package at its version, a nested
    copy under its parent (`{"body-parser": {".": "2.2.0", "content-type": "1.0.5"}}`), so an install with
    them moves nothing but what the caller changes (issue 47: a swap moves exactly one package)."""
    pins: dict[str, Pin] = {}
    nested: dict[str, dict[str, str]] = {}
    for place, version in tree.items():
        parent, _, name = _split_place(place)
        if parent:
            nested.setdefault(parent, {})[name] = version
        else:
            pins[name] = version
    for parent, children in nested.items():
        if "/" in _split_place(parent)[0] or parent not in pins:
            continue  # deeper nesting: left to resolve (the install is checked against the tree after)
        own = pins[parent]
        pins[parent] = {".": own if isinstance(own, str) else "", **children}
    return pins


def _split_place(place: str) -> tuple[str, str, str]:
    """`a/@s/b` -> (`a`, `/`, `@s/b`): a place's parent and its package name (scoped names kept whole)."""
    parts = place.split("/")
    name_len = 2 if len(parts) >= 2 and parts[-2].startswith("@") else 1
    parent = "/".join(parts[:-name_len])
    return parent, "/" if parent else "", "/".join(parts[-name_len:])


def file_sha256(path: Path) -> str:
    """Read in chunks: an installed file of any size costs no more memory than a small one."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def tree_sha256(root: Path) -> str:
    """Digest of every file (and symlink target) under `root`, by relative path: the whole install."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            path = Path(dirpath) / name
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            if path.is_symlink():
                digest.update(b"->" + os.readlink(path).encode())
            else:
                digest.update(bytes.fromhex(file_sha256(path)))
    return digest.hexdigest()


def read_entry(root: Path, package: str = PACKAGE) -> tuple[str, Path]:
    """The installed version (read back, not assumed) and the entry file named by package.json `bin`."""
    pkg_dir = package_dir(root, package)
    try:
        meta = read_json(pkg_dir / "package.json", what="package.json", limit=PACKAGE_BYTES)
    except InputError as exc:
        raise TargetError(f"installed {package} has no readable package.json: {exc}") from None
    if not isinstance(meta, dict):
        raise TargetError(f"installed {package} has a package.json that is not an object")
    version = meta.get("version")
    bin_field = meta.get("bin")
    entry: object = bin_field
    if isinstance(bin_field, dict):
        preferred = "mcp-" + package.rsplit("/", 1)[-1]
        entry = bin_field.get(preferred, next(iter(bin_field.values()), None))
    if not isinstance(version, str) or not isinstance(entry, str):
        raise TargetError(f"installed {package} declares no version or no `bin` entry in package.json")
    entry_path = (pkg_dir / entry).resolve()
    if not entry_path.is_file():
        raise TargetError(f"installed {package}@{version} has no entry file {entry}")
    return version, entry_path


def lock_integrity(root: Path, package: str = PACKAGE) -> str | None:
    try:
        lock = read_json(root / "package-lock.json", what="package-lock.json", limit=DATA_BYTES)
    except InputError:
        return None
    packages = lock.get("packages") if isinstance(lock, dict) else None
    entry = packages.get(f"node_modules/{package}", {}) if isinstance(packages, dict) else None
    integrity = entry.get("integrity") if isinstance(entry, dict) else None
    return integrity if isinstance(integrity, str) else None


def verify(
    root: Path, version: str, package: str = PACKAGE, before: str | None = None
) -> tuple[InstalledPackage | None, str]:
    """The cached install's manifest if it matches what the harness recorded outside the cache when it
    installed it, else None and why not. The cache's own manifest is only read; it is never the proof."""
    if not (root / MANIFEST).exists():
        return None, "not installed"
    try:
        manifest = read_model(root / MANIFEST, InstalledPackage, what="install manifest")
    except InputError as exc:
        return None, f"unreadable manifest ({exc})"
    if manifest.requested_version != version or manifest.package_name != package:
        return None, "manifest is for another package or version"
    if manifest.before != before:
        return None, "manifest is for another resolution date"
    state = npm_state.state_dir_for(root.parent.parent.parent)
    record = npm_state.read_record(state, root)
    if record is None:
        return None, (
            f"no record of this install in the state folder {state}: the cache's install was recorded by "
            f"another state folder (a run with another HOME or ${npm_state.STATE_ENV} sharing the cache) or "
            f"made before installs were recorded (`install --adopt` records it here on your word)"
        )
    if _as_record(root, manifest) != record:
        return None, "the cache's manifest differs from the one recorded outside the cache at install"
    entry = root / record.entry
    try:
        if file_sha256(entry) != record.entry_sha256:
            return None, f"sha256 of {record.entry} differs from the one recorded at install"
        installed_version, _ = read_entry(root, package)
        if installed_version != record.package_version:
            return None, "installed package.json version differs from the one recorded at install"
        if tree_sha256(root / "node_modules") != record.tree_sha256:
            return None, "node_modules differs from what was installed"
    except (OSError, TargetError) as exc:
        return None, f"install is incomplete ({exc})"
    return manifest, "ok"


def _same_install(root: Path, fresh: InstalledPackage) -> InstalledPackage | None:
    """The cache's manifest at `root` when its install is, digest for digest on disk, what npm just installed
    again: then it stays where it is, since swapping an identical tree under running processes of other runs
    (a fork whose node_modules link into it) only makes their next start fail."""
    if not (root / MANIFEST).exists():
        return None
    try:
        manifest = read_model(root / MANIFEST, InstalledPackage, what="install manifest")
    except InputError:
        return None
    if _as_record(root, manifest) != _as_record(root, fresh):
        return None
    try:
        intact = (file_sha256(root / manifest.entry) == fresh.entry_sha256
                  and tree_sha256(root / "node_modules") == fresh.tree_sha256)
    except OSError:
        return None
    return manifest if intact else None


def _as_record(root: Path, manifest: InstalledPackage) -> npm_state.InstallRecord:
    return npm_state.InstallRecord(
        install_dir=str(root.resolve()),
        package_name=manifest.package_name,
        requested_version=manifest.requested_version,
        package_version=manifest.package_version,
        entry=manifest.entry,
        entry_sha256=manifest.entry_sha256,
        tree_sha256=manifest.tree_sha256,
        integrity=manifest.integrity,
        before=manifest.before,
    )


def adopt(root: Path, version: str, package: str = PACKAGE, before: str | None = None) -> InstalledPackage:
    """Record an install already in the cache as this user's own, on the user's word (`install --adopt`):
    for a cache filled before installs were recorded. Checked against its own manifest only."""
    if not (root / MANIFEST).exists():
        raise TargetError(f"nothing to adopt: {package}@{version} is not installed in {root}")
    try:
        manifest = read_model(root / MANIFEST, InstalledPackage, what="install manifest")
    except InputError as exc:
        raise TargetError(str(exc)) from None
    if (manifest.requested_version, manifest.package_name, manifest.before) != (version, package, before):
        raise TargetError(f"the install in {root} is for another package, version or resolution date")
    try:
        intact = (
            file_sha256(root / manifest.entry) == manifest.entry_sha256
            and tree_sha256(root / "node_modules") == manifest.tree_sha256
        )
    except OSError as exc:
        raise TargetError(f"the install in {root} is incomplete ({exc})") from None
    if not intact:
        raise TargetError(f"the install in {root} differs from its own manifest: not adopted")
    npm_state.write_record(npm_state.state_dir_for(root.parent.parent.parent), _as_record(root, manifest))
    return manifest


@contextlib.contextmanager
def _install_lock(path: Path, progress: Progress) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        deadline = time.monotonic() + LOCK_TIMEOUT
        told = False
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not told:
                    progress(f"waiting for another process installing into {path.parent}")
                    told = True
                if time.monotonic() > deadline:
                    raise TargetError(f"timed out waiting for the install lock {path}") from None
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _npm_failure(stderr: str, package: str, version: str) -> str:
    """One line saying why npm failed."""
    if "ETARGET" in stderr or "notarget" in stderr:
        return f"npm has no version {version} of {package}"
    if "E404" in stderr:
        return f"the npm registry has no package {package}@{version}"
    for code in ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "CERT_"):
        if code in stderr:
            return f"cannot reach the npm registry to install {package}@{version} ({code})"
    for line in stderr.splitlines():
        text = re.sub(r"^npm (?:ERR!|error)\s*", "", line.strip())
        if text and not text.startswith(("A complete log", "code ")) and line.strip().startswith("npm"):
            return f"npm install {package}@{version} failed: {text}"
    return f"npm install {package}@{version} failed"


def _npm_view(npm: str, package: str, version: str, field: str) -> str | None:
    """One field of `npm view package@version`, or None when npm answered with an error."""
    try:
        done = subprocess.run(
            [npm, "view", f"{package}@{version}", field],
            capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise TargetError(f"cannot ask the npm registry about {package}@{version}: {exc}") from None
    return done.stdout.strip() if done.returncode == 0 else None


def tarball_url(npm: str, package: str, version: str) -> str:
    """Where the registry keeps `package@version`'s tarball (`npm view … dist.tarball`)."""
    url = _npm_view(npm, package, version, "dist.tarball")
    if url is None or not url.startswith(("https://", "http://")):
        raise TargetError(f"the npm registry names no tarball for {package}@{version}")
    return url


def registry_integrity(npm: str, package: str, version: str) -> str:
    """The sha512 integrity the registry publishes for `package@version`'s tarball (`dist.integrity`)."""
    integrity = _npm_view(npm, package, version, "dist.integrity")
    if integrity is None or not re.fullmatch(r"sha512-[A-Za-z0-9+/]+={0,2}", integrity):
        raise TargetError(f"the npm registry names no sha512 integrity for {package}@{version}")
    return integrity


def _run_npm(
    npm: str, workdir: Path, package: str, version: str, before: str | None = None, source: str | None = None
) -> None:
    """npm install in `workdir`, in its own process group so an interrupt can end all of it."""
    env = {
        **os.environ,
        "npm_config_update_notifier": "false",
        "npm_config_fund": "false",
        "npm_config_audit": "false",
    }
    try:
        proc = subprocess.Popen(
            [
                npm,
                "install",
                source or f"{package}@{version}",
                "--save-exact",
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                *([f"--before={before}"] if before is not None else []),
            ],
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
            text=True,
            errors="replace",
        )
    except OSError as exc:
        raise TargetError(f"cannot run npm: {exc.strerror or exc}") from None
    try:
        _, stderr = proc.communicate(timeout=INSTALL_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise TargetError(f"npm install {package}@{version} took longer than {INSTALL_TIMEOUT:g}s") from None
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if proc.returncode != 0:
        if "ENOSPC" in stderr:
            where = f"npm could not install {package}@{version} in {workdir}"
            raise NoSpaceError(f"no space left on device: {where}")
        raise TargetError(_npm_failure(stderr, package, version))


def _install_into(
    workdir: Path, npm: str, node: str, package: str, version: str, before: str | None, by_tarball: bool,
    overrides: Mapping[str, Pin] | None = None,
) -> InstalledPackage:
    wrapper: dict[str, object] = {"name": "seqthink-npm-cache", "private": True,
                                  "description": f"{package}@{version}"}
    if overrides:
        wrapper["overrides"] = dict(overrides)
    (workdir / "package.json").write_text(json.dumps(wrapper), encoding="utf-8")
    # a release whose own (re-stamped) publish time is after the cutoff is invisible to --before: name its
    # tarball, and npm resolves only its dependencies as of the cutoff
    source = tarball_url(npm, package, version) if by_tarball else None
    _run_npm(npm, workdir, package, version, before, source)
    installed_version, entry = read_entry(workdir, package)
    if installed_version != version:
        raise TargetError(f"npm installed {package}@{installed_version}, not the requested {version}")
    expected = registry_integrity(npm, package, version)
    integrity = lock_integrity(workdir, package)
    if integrity != expected:
        raise TargetError(
            f"npm installed a {package}@{version} whose integrity ({integrity or 'none recorded'}) is not "
            f"the registry's ({expected}): not used"
        )
    manifest = InstalledPackage(
        package_name=package,
        requested_version=version,
        package_version=installed_version,
        entry=str(entry.relative_to(workdir.resolve())),
        entry_sha256=file_sha256(entry),
        tree_sha256=tree_sha256(workdir / "node_modules"),
        integrity=integrity,
        node_version=node_version(node),
        installed_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        before=before,
    )
    # today's trees share their folder with harnesses that predate `before`: leave the field out there
    text = manifest.model_dump_json(indent=2, exclude={"before"} if before is None else None)
    (workdir / MANIFEST).write_text(text + "\n", encoding="utf-8")
    return manifest


def ensure_installed(
    version: str,
    cache_dir: Path,
    *,
    progress: Progress | None = None,
    package: str = PACKAGE,
    before: str | None = None,
    by_tarball: bool = False,
    overrides: Mapping[str, Pin] | None = None,
) -> tuple[Path, InstalledPackage]:
    """Install folder and manifest of `package@version`, installed first unless an intact one exists.

    With `before`, npm resolves every dependency as of that moment (`--before`), as users got it then;
    `overrides` pins the named dependencies wherever they sit in the tree (npm's `overrides`).
    """
    say = progress or _silent
    root = install_dir(cache_dir, version, package, before, overrides)
    name = root.name
    manifest, _ = verify(root, version, package, before)
    if manifest is not None:
        return root, manifest
    npm = require_tool("npm")
    node = require_tool("node")
    with _install_lock(root.with_name(f".{name}.lock"), say):
        manifest, reason = verify(root, version, package, before)
        if manifest is not None:
            return root, manifest
        for stale in root.parent.glob(f".{name}.tmp-*"):
            shutil.rmtree(stale, ignore_errors=True)
        if root.exists():
            say(f"reinstalling {package}@{version}: {reason}")
        else:
            as_of = f" as of {before}" if before is not None else ""
            say(f"installing {package}@{version}{as_of} with npm into {root}")
        root.parent.mkdir(parents=True, exist_ok=True)
        workdir = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=root.parent))
        try:
            manifest = _install_into(workdir, npm, node, package, version, before, by_tarball, overrides)
            kept = _same_install(root, manifest)
            if kept is not None:
                say(f"{package}@{version} as installed again is the cache's install file for file: kept in "
                    f"place (processes of other runs still use it) and recorded in this state folder")
                manifest = kept
            else:
                # Two renames, then the old tree removed: the path is empty only between the renames, never
                # for the whole removal, for processes of other runs starting from it meanwhile.
                old = root.with_name(f".{name}.old-{os.getpid()}")
                if root.exists():
                    root.rename(old)
                workdir.rename(root)
                shutil.rmtree(old, ignore_errors=True)
            npm_state.write_record(npm_state.state_dir_for(cache_dir), _as_record(root, manifest))
        finally:
            if workdir.exists():
                shutil.rmtree(workdir, ignore_errors=True)
    return root, manifest
