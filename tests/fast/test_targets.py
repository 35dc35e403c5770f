"""Targets: resolving specs, the reference and `cmd:` targets, and one-line failures (no npm, no node; the
installs are in tests/e2e/test_npm_installs.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conformance.drivers.errors import TargetError
from conformance.targets.specs import default_cache_dir, resolve_target
from tests.servers import command

REPO = Path(__file__).parents[2]


def test_default_cache_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SEQTHINK_CONFORMANCE_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert default_cache_dir() == Path.home() / ".cache" / "seqthink-conformance"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "seqthink-conformance"
    monkeypatch.setenv("SEQTHINK_CONFORMANCE_CACHE", str(tmp_path / "explicit"))
    assert default_cache_dir() == tmp_path / "explicit"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("npm:latest", "npm target needs an exact version like npm:0.6.2, not 'latest'"),
        ("npm:../../etc", "npm target needs an exact version"),
        ("bogus", "unknown target 'bogus'"),
        ("cmd:", "cmd: target needs a command line"),
        ("cmd:'unterminated", "cannot parse the command line"),
        ("cmd:no-such-server-binary --flag", "command not found: no-such-server-binary"),
    ],
)
def test_bad_targets_fail_with_one_line(tmp_path: Path, spec: str, message: str) -> None:
    with pytest.raises(TargetError) as failure:
        resolve_target(spec, cache_dir=tmp_path)
    assert message in str(failure.value)
    assert "\n" not in str(failure.value)
    error = failure.value
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__, "no chained traceback"


def test_missing_node_and_npm_fail_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(TargetError) as failure:
        resolve_target("npm:0.6.2", cache_dir=tmp_path / "cache")
    assert str(failure.value) == "npm targets need Node.js and npm on PATH, and `npm` was not found"


def test_cmd_target_identity_is_the_command_and_it_runs() -> None:
    line = " ".join(command("mini"))
    target = resolve_target(f"cmd:{line}")
    assert target.identity.kind == "cmd"
    assert target.identity.command == command("mini")
    assert target.command == tuple(command("mini"))
    with target.wire(timeout=60) as driver:
        assert driver.initialize()["serverInfo"] == {"name": "mini", "version": "0"}


def test_reference_target_runs_this_interpreter() -> None:
    target = resolve_target("reference")
    assert target.command == (sys.executable, "-m", "reference_server")
    assert target.identity.kind == "reference"
    assert target.identity.python_version is not None
    assert target.identity.tree_sha256 is not None


def test_reference_target_reports_when_the_server_is_not_importable(tmp_path: Path) -> None:
    shadow = tmp_path / "reference_server"
    shadow.mkdir()
    (shadow / "__init__.py").write_text('"""A reference_server package without a server in it."""\n')
    code = textwrap.dedent(
        f"""
        import sys
        sys.path[:0] = [{str(tmp_path)!r}, {str(REPO)!r}]
        from conformance.targets.specs import resolve_target
        from conformance.drivers.errors import TargetError
        try:
            resolve_target("reference")
        except TargetError as error:
            print(error)
        """
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "reference server not available yet", done.stderr
