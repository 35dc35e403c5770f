"""An npm install is checked against digests kept outside the cache: a cache whose writer changed the entry
and recomputed the cache's own manifest is not trusted (no npm here: the install is laid out by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.drivers.errors import TargetError
from conformance.targets import npm, npm_state
from tests.cli import cli_here

VERSION = "0.6.2"


def _lay_out(cache: Path) -> Path:
    """A cache folder as an install leaves it, and its record in the state folder."""
    root = npm.install_dir(cache, VERSION)
    package = npm.package_dir(root)
    package.mkdir(parents=True)
    (package / "package.json").write_text(
        json.dumps({"name": npm.PACKAGE, "version": VERSION, "bin": {"x": "index.js"}}), encoding="utf-8"
    )
    (package / "index.js").write_text("console.log('the original')\n", encoding="utf-8")
    _rewrite_manifest(root)
    npm.adopt(root, VERSION)
    return root


def _rewrite_manifest(root: Path) -> None:
    """What a writer of the cache can do: recompute every digest the cache's own manifest holds."""
    entry = npm.package_dir(root) / "index.js"
    manifest = npm.InstalledPackage(
        package_name=npm.PACKAGE, requested_version=VERSION, package_version=VERSION,
        entry=str(entry.relative_to(root)), entry_sha256=npm.file_sha256(entry),
        tree_sha256=npm.tree_sha256(root / "node_modules"), integrity="sha512-AAAA",
        node_version="v20.0.0", installed_at="2026-01-01T00:00:00+00:00",
    )
    (root / npm.MANIFEST).write_text(manifest.model_dump_json(exclude={"before"}), encoding="utf-8")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(npm_state.STATE_ENV, str(tmp_path / "state"))
    return tmp_path / "cache"


def test_an_install_recorded_outside_the_cache_is_trusted(cache: Path) -> None:
    root = _lay_out(cache)
    manifest, reason = npm.verify(root, VERSION)
    assert (manifest is not None, reason) == (True, "ok")
    in_cache = [p for p in cache.rglob("*.json") if npm_state.RECORD_FORMAT in p.read_text()]
    assert not in_cache, "the record lives outside the cache"


def test_an_entry_changed_with_the_cache_manifest_recomputed_is_refused(cache: Path) -> None:
    root = _lay_out(cache)
    (npm.package_dir(root) / "index.js").write_text("require('child_process')\n", encoding="utf-8")
    _rewrite_manifest(root)
    manifest, reason = npm.verify(root, VERSION)
    assert manifest is None
    assert reason == "the cache's manifest differs from the one recorded outside the cache at install"


def test_a_dependency_changed_with_the_manifest_recomputed_is_refused(cache: Path) -> None:
    root = _lay_out(cache)
    planted = root / "node_modules" / "zod" / "index.js"
    planted.parent.mkdir(parents=True)
    planted.write_text("module.exports = process\n", encoding="utf-8")
    _rewrite_manifest(root)
    manifest, _ = npm.verify(root, VERSION)
    assert manifest is None


def test_an_install_with_no_record_is_not_trusted(cache: Path, tmp_path: Path) -> None:
    root = _lay_out(cache)
    npm_state.record_path(tmp_path / "state", root).unlink()
    manifest, reason = npm.verify(root, VERSION)
    assert manifest is None and reason.startswith("no record of this install in the state folder")
    assert "recorded by another state folder" in reason


def test_a_record_rewritten_for_another_folder_is_not_read(cache: Path, tmp_path: Path) -> None:
    root = _lay_out(cache)
    path = npm_state.record_path(tmp_path / "state", root)
    record = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**record, "install_dir": "/elsewhere"}), encoding="utf-8")
    assert npm.verify(root, VERSION)[0] is None


def test_a_state_folder_inside_the_cache_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(npm_state.STATE_ENV, str(tmp_path / "cache" / "state"))
    with pytest.raises(TargetError, match="is inside the target cache"):
        npm_state.state_dir_for(tmp_path / "cache")


def test_the_state_folder_defaults_outside_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(npm_state.STATE_ENV, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert npm_state.default_state_dir() == tmp_path / "xdg" / "seqthink-conformance"


FAKE_NPM = """#!{python}
import json, os, sys
from pathlib import Path
args = sys.argv[1:]
if args[0] == "view":
    print({registry!r})
    sys.exit(0)
package = Path("node_modules/@modelcontextprotocol/server-sequential-thinking")
package.mkdir(parents=True)
(package / "package.json").write_text(json.dumps({{"name": "@modelcontextprotocol/server-sequential-thinking",
                                                   "version": "0.6.2", "bin": {{"x": "index.js"}}}}))
(package / "index.js").write_text("console.log('served')\\n")
entry = {{"integrity": {fetched!r}}}
lock = {{"packages": {{"node_modules/@modelcontextprotocol/server-sequential-thinking": entry}}}}
Path("package-lock.json").write_text(json.dumps(lock))
"""


def _fake_tools(bin_dir: Path, monkeypatch: pytest.MonkeyPatch, *, registry: str, fetched: str) -> None:
    """An `npm` that installs a package whose lockfile says `fetched` while the registry says `registry`, and
    a `node` that only tells its version (the fast tier runs neither)."""
    import sys

    bin_dir.mkdir()
    (bin_dir / "npm").write_text(FAKE_NPM.format(python=sys.executable, registry=registry, fetched=fetched))
    (bin_dir / "node").write_text("#!/bin/sh\necho v20.0.0\n")
    for tool in ("npm", "node"):
        (bin_dir / tool).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")


def test_an_install_whose_integrity_is_not_the_registry_s_is_refused(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_tools(tmp_path / "bin", monkeypatch, registry="sha512-" + "A" * 86 + "==", fetched="sha512-B==")
    with pytest.raises(TargetError, match=r"whose integrity \(sha512-B==\) is not the registry's"):
        npm.ensure_installed(VERSION, cache)
    assert not npm.install_dir(cache, VERSION).exists()
    assert not (tmp_path / "state").exists(), "nothing recorded"


def test_an_install_with_the_registry_s_integrity_is_recorded_outside_the_cache(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    integrity = "sha512-" + "A" * 86 + "=="
    _fake_tools(tmp_path / "bin", monkeypatch, registry=integrity, fetched=integrity)
    root, manifest = npm.ensure_installed(VERSION, cache)
    assert manifest.integrity == integrity
    record = npm_state.read_record(tmp_path / "state", root)
    assert record is not None and record.tree_sha256 == manifest.tree_sha256
    assert npm.verify(root, VERSION)[1] == "ok"


def test_adopt_records_a_cache_filled_before_records_existed(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _lay_out(cache)
    _fake_tools(tmp_path / "bin", monkeypatch, registry="unused", fetched="unused")
    npm_state.record_path(tmp_path / "state", root).unlink()
    assert npm.verify(root, VERSION)[0] is None
    ran = cli_here("install", f"npm:{VERSION}@today", "--adopt", "--target-cache", str(cache))
    assert ran.code == 0, ran.stderr
    assert npm.verify(root, VERSION)[1] == "ok"


def test_a_tree_with_pinned_dependencies_has_its_own_folder(tmp_path: Path) -> None:
    """A one-dependency swap (npm overrides) is never the release's own tree: its folder names the pins,
    the same pins in any order the same folder."""
    before = "2026-07-10T18:35:07.582Z"
    own = npm.install_dir(tmp_path, "2026.7.4", npm.PACKAGE, before)
    pinned = npm.install_dir(tmp_path, "2026.7.4", npm.PACKAGE, before, {"zod": "4.2.1", "yargs": "17.7.3"})
    again = npm.install_dir(tmp_path, "2026.7.4", npm.PACKAGE, before, {"yargs": "17.7.3", "zod": "4.2.1"})
    other = npm.install_dir(tmp_path, "2026.7.4", npm.PACKAGE, before, {"zod": "4.5.4", "yargs": "17.7.3"})
    assert pinned == again and len({own, pinned, other}) == 3
    assert pinned.name.startswith(own.name + "+pins-")


def test_a_reinstall_for_another_state_folder_says_why_and_leaves_the_same_install_in_place(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two HOMEs sharing one cache: the second finds no record of its own and installs again, and the files
    are the first's: the folder running processes use stays where it is, recorded in both state folders."""
    integrity = "sha512-" + "A" * 86 + "=="
    _fake_tools(tmp_path / "bin", monkeypatch, registry=integrity, fetched=integrity)
    root, _ = npm.ensure_installed(VERSION, cache)
    entry = npm.package_dir(root) / "index.js"
    before = entry.stat()
    monkeypatch.setenv(npm_state.STATE_ENV, str(tmp_path / "other-home-state"))
    said: list[str] = []
    again, _ = npm.ensure_installed(VERSION, cache, progress=said.append)
    now = entry.stat()
    assert again == root and (now.st_ino, now.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert any("recorded by another state folder" in line for line in said), said
    for state in ("state", "other-home-state"):
        monkeypatch.setenv(npm_state.STATE_ENV, str(tmp_path / state))
        assert npm.verify(root, VERSION)[1] == "ok"


def test_a_reinstall_that_differs_from_the_cache_s_install_replaces_it(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    integrity = "sha512-" + "A" * 86 + "=="
    _fake_tools(tmp_path / "bin", monkeypatch, registry=integrity, fetched=integrity)
    root, _ = npm.ensure_installed(VERSION, cache)
    planted = root / "node_modules" / "zod" / "index.js"
    planted.parent.mkdir(parents=True)
    planted.write_text("module.exports = process\n", encoding="utf-8")
    monkeypatch.setenv(npm_state.STATE_ENV, str(tmp_path / "other-home-state"))
    npm.ensure_installed(VERSION, cache)
    assert not planted.exists() and npm.verify(root, VERSION)[1] == "ok"


def test_a_replaced_install_s_path_is_never_empty_while_the_old_tree_is_removed(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fork's `node_modules` links to the install's path: its processes starting while the old tree is
    removed found nothing there (ERR_MODULE_NOT_FOUND) when the new tree was renamed in only after."""
    integrity = "sha512-" + "A" * 86 + "=="
    _fake_tools(tmp_path / "bin", monkeypatch, registry=integrity, fetched=integrity)
    root, _ = npm.ensure_installed(VERSION, cache)
    (root / "node_modules" / "planted.js").write_text("module.exports = process\n", encoding="utf-8")
    entry = npm.package_dir(root) / "index.js"
    seen: list[bool] = []
    removing = npm.shutil.rmtree

    def watched(path: Path, *args: object, **kwargs: object) -> None:
        if ".old-" in Path(path).name:
            seen.append(entry.is_file())
        removing(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(npm.shutil, "rmtree", watched)
    monkeypatch.setenv(npm_state.STATE_ENV, str(tmp_path / "other-home-state"))
    npm.ensure_installed(VERSION, cache)
    assert seen == [True] and not (root / "node_modules" / "planted.js").exists()
