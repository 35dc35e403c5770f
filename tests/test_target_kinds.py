"""A target kind is one module and one entry in `conformance/targets/kinds`: a kind only this test knows
(`test-server:NAME`, a server from tests/servers) is accepted by the command line, resolved and run by it,
with no other edit."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from servers import command

from conformance.cli.main import main
from conformance.core.identity import TargetIdentity
from conformance.drivers.errors import TargetError
from conformance.targets.kinds import KINDS, TargetKind, unresolved_identity
from conformance.targets.kinds.kind import Progress
from conformance.targets.project import package_dir_of, project_of
from conformance.targets.specs import Target, resolve_target

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
MINI_SUITE = str(TESTS / "cli_suite" / "gate_suite.py")


class ServerKind(TargetKind):
    """`test-server:NAME` starts tests/servers/NAME.py."""

    prefix = "test-server:"
    identity_kind = "cmd"
    syntax = short_syntax = "test-server:<name>"

    def resolve(self, base: str, cache_dir: Path, progress: Progress | None) -> Target:
        argv = command(base.removeprefix(self.prefix))
        if not Path(argv[1]).is_file():
            raise TargetError(f"no test server {base.removeprefix(self.prefix)!r}")
        return Target(base, tuple(argv), TargetIdentity(spec=base, kind="cmd", command=argv))


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(KINDS, ServerKind.prefix, ServerKind())


def run_help(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_an_unlisted_kind_is_refused_by_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["run", "--target", "test-server:mini"], stdout=out, stderr=err) == 2
    assert "'test-server:mini': expected [KEY=VALUE ...] reference, npm:" in err.getvalue()
    assert "test-server:<name>" not in run_help(capsys)
    with pytest.raises(TargetError, match="unknown target 'test-server:mini'"):
        resolve_target("test-server:mini")


@pytest.mark.usefixtures("registered")
def test_a_listed_kind_is_parsed_helped_resolved_and_started(capsys: pytest.CaptureFixture[str]) -> None:
    assert "reference | npm:<version>[@today] | cmd:<command line> | test-server:<name>" in run_help(capsys)
    target = resolve_target("B=2 A=1 test-server:mini")
    assert target.spec == "A=1 B=2 test-server:mini"
    assert target.identity.env == {"A": "1", "B": "2"} and target.identity.kind == "cmd"
    assert target.command == tuple(command("mini"))
    with target.wire(timeout=5) as driver:
        assert driver.initialize()["serverInfo"] == {"name": "mini", "version": "0"}
    assert unresolved_identity("A=1 test-server:mini").model_dump(exclude_defaults=True) == {
        "spec": "A=1 test-server:mini", "kind": "cmd", "command": [], "env": {"A": "1"}
    }
    assert project_of(target.identity) is None and package_dir_of(target) is None


def test_a_listed_kind_is_run_by_the_command_line(tmp_path: Path) -> None:
    """The whole `run`, in a process that lists the kind before it parses the command line."""
    code = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(TESTS)!r})
        from test_target_kinds import ServerKind
        from conformance.targets.kinds import KINDS
        KINDS[ServerKind.prefix] = ServerKind()
        from conformance.cli.main import main
        sys.exit(main(sys.argv[1:]))
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("CI", None)
    argv = ["run", "--target", "test-server:mini", "--suite", MINI_SUITE, "--profile", "dev", "--seed", "1",
            "--out", str(tmp_path)]
    done = subprocess.run([sys.executable, "-c", code, *argv], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 1, done.stdout + done.stderr  # a server named mini departs from CMP-3
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["target"]["spec"] == "test-server:mini" and report["target"]["command"] == command("mini")
    assert report["preflight"]["ok"] and report["run"]["tests"] == 3, report["run"]
    assert report["server_info"] == {"name": "mini", "version": "0"}
