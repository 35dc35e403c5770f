"""The suite's pytest reads no conftest.py but the suite's own, wherever the run starts (a run started in a
checkout loaded its tests/conftest.py: an unknown-mark warning in pytest.log, and a user's conftest could
change what the suite checks), and says that PYTEST_ADDOPTS is not passed on. Collection only: pytest as the
runner calls it, in a child process started in a folder holding conftest files that leave a mark when
loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conformance.cli.runner.suite import ADDOPTS_IGNORED, pytest_args, suite_conftest
from conformance.gate.run_options import RunOptions

REPO = Path(__file__).resolve().parents[2]

_COLLECT = """import sys
from pathlib import Path
import pytest
from conformance.cli.runner.suite import ADDOPTS_IGNORED, pytest_args, suite_conftest
from conformance.gate.run_options import RunOptions
options = RunOptions(target="reference", profile="dev", seed=1, out=Path("out"))
sys.exit(pytest.main(pytest_args(options, Path("results")) + ["--collect-only", "-q"]))
"""


def _planted(folder: Path) -> list[Path]:
    marks = []
    for where in (folder, folder / "tests"):
        where.mkdir(exist_ok=True)
        mark = where / "loaded.mark"
        (where / "conftest.py").write_text(f"open({str(mark)!r}, 'w').close()\n")
        marks.append(mark)
    return marks


def test_a_run_loads_no_conftest_of_the_folder_it_starts_in(tmp_path: Path) -> None:
    marks = _planted(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # as the runner does
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run([sys.executable, "-c", _COLLECT], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert [m for m in marks if m.exists()] == [], "the suite's pytest loaded a conftest.py of the user's"
    assert "conformance/suite/test_store.py" in done.stdout, "the suite's tests were not collected"


def test_the_suite_s_own_conftest_is_a_plugin_and_no_other_is_read() -> None:
    args = pytest_args(RunOptions(target="reference", profile="dev", seed=1, out=Path("out")), Path("r"))
    assert "--noconftest" in args and args[args.index("conformance.suite.conftest") - 1] == "-p"
    assert suite_conftest("tests.cli_suite.gate_suite") is None
    assert "PYTEST_ADDOPTS" in ADDOPTS_IGNORED
