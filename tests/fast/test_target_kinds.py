"""A target kind is one module and one entry in `conformance/targets/kinds`: a kind only this test knows
(`test-server:NAME`, a server from tests/servers) is accepted by the command line, resolved and run by it,
with no other edit (the whole `run` of it: tests/e2e/test_target_kinds_run.py)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from conformance.cli.main import main
from conformance.core.identity import TargetIdentity
from conformance.drivers.errors import TargetError
from conformance.targets.kinds import KINDS, TargetKind, unresolved_identity
from conformance.targets.kinds.kind import Progress
from conformance.targets.project import package_dir_of, project_of
from conformance.targets.specs import Target, resolve_target
from tests.servers import command


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
    assert main(["run", "--target", "test-server:mini"], stdout=out, stderr=err) == 4
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
    with target.wire(timeout=60) as driver:
        assert driver.initialize()["serverInfo"] == {"name": "mini", "version": "0"}
    assert unresolved_identity("A=1 test-server:mini").model_dump(exclude_defaults=True) == {
        "spec": "A=1 test-server:mini", "kind": "cmd", "command": [], "env": {"A": "1"}
    }
    assert project_of(target.identity) is None and package_dir_of(target) is None
