"""Installing npm targets for real: the TypeScript original's identity read back from its install, a cache
reused and repaired, parallel and interrupted installs, and a version the registry does not have."""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conformance.drivers.errors import TargetError
from conformance.targets import npm, npm_state
from conformance.targets.specs import default_cache_dir, resolve_target
from tests.servers import ts062

REPO = Path(__file__).resolve().parents[2]


def resolve_in_subprocess(spec: str, cache: Path, *, cwd: Path = REPO) -> subprocess.Popen[str]:
    """resolve_target in a separate interpreter, printing its progress lines and then the identity."""
    code = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from pathlib import Path
        from conformance.targets.specs import resolve_target
        from conformance.drivers.errors import TargetError
        try:
            target = resolve_target({spec!r}, cache_dir=Path({str(cache)!r}),
                                    progress=lambda line: print("progress:", line, flush=True))
        except TargetError as error:
            print("error:", error, flush=True)
            sys.exit(2)
        print("identity:", target.identity.model_dump_json(), flush=True)
        """
    )
    return subprocess.Popen(
        [sys.executable, "-I", "-c", code], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_npm_062_identity_is_read_back_from_the_install() -> None:
    target = ts062()
    identity = target.identity
    assert identity.kind == "npm" and identity.spec == "npm:0.6.2"
    assert identity.package_name == "@modelcontextprotocol/server-sequential-thinking"
    assert identity.package_version == "0.6.2"
    entry = Path(target.command[1])
    assert entry.name == "index.js" and entry.is_file()
    assert identity.entry_sha256 == hashlib.sha256(entry.read_bytes()).hexdigest()
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    assert identity.node_version == node
    assert identity.integrity is not None and identity.integrity.startswith("sha512-")
    assert identity.command == list(target.command)


def test_fresh_install_is_reused_and_reinstalled_when_tampered(tmp_path: Path) -> None:
    messages: list[str] = []
    first = resolve_target("npm:0.6.2@today", cache_dir=tmp_path, progress=messages.append)
    assert len(messages) == 1 and messages[0].startswith("installing")
    root = npm.install_dir(tmp_path, "0.6.2")
    assert (root / npm.MANIFEST).is_file()
    assert sorted(p.name for p in root.parent.iterdir()) == [".0.6.2.lock", "0.6.2"]

    started = time.process_time()  # CPU seconds: checking the tree's digests, never a wall clock (issue 43)
    again = resolve_target("npm:0.6.2@today", cache_dir=tmp_path, progress=messages.append)
    assert time.process_time() - started < 2
    assert len(messages) == 1, "an intact cache is reused without npm"
    assert again.identity == first.identity

    entry = Path(first.command[1])
    entry.write_bytes(entry.read_bytes() + b"\n// tampered\n")
    repaired = resolve_target("npm:0.6.2@today", cache_dir=tmp_path, progress=messages.append)
    assert messages[-1].startswith("reinstalling") and "sha256" in messages[-1]
    assert repaired.identity.entry_sha256 == first.identity.entry_sha256
    assert b"tampered" not in entry.read_bytes()

    dependency = root / "node_modules" / "zod" / "package.json"
    dependency.write_text(dependency.read_text() + " ")
    resolve_target("npm:0.6.2@today", cache_dir=tmp_path, progress=messages.append)
    assert messages[-1].startswith("reinstalling") and "node_modules" in messages[-1]


def test_parallel_installs_run_npm_once(tmp_path: Path) -> None:
    workers = [resolve_in_subprocess("npm:0.6.2@today", tmp_path) for _ in range(2)]
    outputs = [worker.communicate(timeout=300)[0] for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0]
    assert sum(out.count("progress: installing") for out in outputs) == 1
    identities = {line for out in outputs for line in out.splitlines() if line.startswith("identity:")}
    assert len(identities) == 1


def test_interrupted_install_leaves_no_half_cache(tmp_path: Path) -> None:
    worker = resolve_in_subprocess("npm:0.6.2@today", tmp_path)
    folder = tmp_path / "npm" / "@modelcontextprotocol__server-sequential-thinking"
    deadline = time.monotonic() + 60
    while not any(folder.glob(".0.6.2.tmp-*/node_modules")):
        assert time.monotonic() < deadline, "npm never started installing"
        assert worker.poll() is None, "the install finished before it could be interrupted"
        time.sleep(0.01)
    worker.send_signal(signal.SIGINT)
    _, stderr = worker.communicate(timeout=30)
    assert "KeyboardInterrupt" in stderr
    assert sorted(p.name for p in folder.iterdir()) == [".0.6.2.lock"]
    assert not any(line for line in _npm_processes_in(tmp_path))
    assert resolve_target("npm:0.6.2@today", cache_dir=tmp_path).identity.package_version == "0.6.2"


def _npm_processes_in(directory: Path) -> list[int]:
    import psutil

    found = []
    for proc in psutil.process_iter(["pid", "cwd", "status"]):
        cwd = proc.info["cwd"] or ""
        if cwd.startswith(str(directory)) and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc.pid)
    return found


def test_an_unpublished_version_fails_with_one_line(tmp_path: Path) -> None:
    """Asks the registry (the other bad specs are refused without it, in tests/fast/test_targets.py)."""
    with pytest.raises(TargetError) as failure:
        resolve_target("npm:9.9.9", cache_dir=tmp_path)
    assert str(failure.value) == f"npm has no version 9.9.9 of {npm.PACKAGE}"
    assert failure.value.__cause__ is None
    assert failure.value.__context__ is None or failure.value.__suppress_context__, "no chained traceback"


def test_a_tampered_install_with_its_manifest_recomputed_is_reinstalled_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A poisoned cache (a CI cache entry anyone with the key can save): index.js changed and the cache's
    own manifest recomputed to match. The digests recorded outside the cache refuse it."""
    shared = npm.install_dir(default_cache_dir(), "0.6.2")
    if not (shared / npm.MANIFEST).is_file():
        pytest.skip("no 0.6.2@today install in the target cache to copy")
    monkeypatch.setenv(npm_state.STATE_ENV, str(tmp_path / "state"))
    cache = tmp_path / "cache"
    root = npm.install_dir(cache, "0.6.2")
    shutil.copytree(shared, root, symlinks=True)
    npm.adopt(root, "0.6.2")
    first = resolve_target("npm:0.6.2@today", cache_dir=cache)
    marker = tmp_path / "the-tampered-code-ran"
    entry = Path(first.command[1])
    shebang, _, code = entry.read_text().partition("\n")
    planted = f"import {{ writeFileSync as planted }} from 'fs'; planted({str(marker)!r}, 'ran');"
    entry.write_text(f"{shebang}\n{planted}\n{code}")
    manifest = json.loads((root / npm.MANIFEST).read_text())
    manifest["entry_sha256"] = npm.file_sha256(entry)
    manifest["tree_sha256"] = npm.tree_sha256(root / "node_modules")
    (root / npm.MANIFEST).write_text(json.dumps(manifest))

    messages: list[str] = []
    repaired = resolve_target("npm:0.6.2@today", cache_dir=cache, progress=messages.append)
    assert messages[0] == (
        f"reinstalling {npm.PACKAGE}@0.6.2: the cache's manifest differs from the one recorded outside the "
        "cache at install"
    )
    assert repaired.identity.entry_sha256 == first.identity.entry_sha256
    assert b"planted" not in entry.read_bytes()
    with repaired.wire() as driver:
        driver.initialize()
    assert not marker.exists()
