"""A target kind only the tests know (`test-server:NAME`, tests/fast/test_target_kinds.py) run by the whole
command line, in a process that lists the kind before it parses its arguments."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

from tests.cli import GATE_SUITE, REPO
from tests.paced import run_paced
from tests.servers import command


def test_a_listed_kind_is_run_by_the_command_line(tmp_path: Path) -> None:
    """The whole `run`, in a process that lists the kind before it parses the command line."""
    code = textwrap.dedent(
        """
        import sys
        from tests.fast.test_target_kinds import ServerKind
        from conformance.targets.kinds import KINDS
        KINDS[ServerKind.prefix] = ServerKind()
        from conformance.cli.main import main
        sys.exit(main(sys.argv[1:]))
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("CI", None)
    argv = ["run", "--target", "test-server:mini", "--suite", GATE_SUITE, "--profile", "dev", "--seed", "1",
            "--out", str(tmp_path)]
    done = run_paced([sys.executable, "-c", code, *argv], cwd=REPO, env=env)
    assert done.returncode == 1, done.stdout + done.stderr  # a server named mini departs from CMP-3
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["target"]["spec"] == "test-server:mini" and report["target"]["command"] == command("mini")
    assert report["preflight"]["ok"] and report["run"]["tests"] == 3, report["run"]
    assert report["server_info"] == {"name": "mini", "version": "0"}
