"""The README's install works as written: its commands, read from README.md's Install section, run as they
stand in a scratch folder holding the repository as a clone or an unpacked release archive holds it (its
tracked files, as `seqthink-conformance/`), with a clean environment: a virtualenv is made, the harness
installed into it (not imported from this checkout), and the first run ends `gate passed`, exit status 0.

It installs from the package index pip is configured with (its cache warm on a developer's machine): a
minute or two, most of it pip. An evidence case (`tox -e evidence`): CI proves each of its steps apart, the
commands' shape and options (tests/fast/test_docs.py), the harness built from the checkout into a virtualenv
of its own and its run against the reference passing (tests/e2e/test_action.py), and the wheel installed
alone, dependencies and all, into an empty one (scripts.check_wheel, a step of .ci/run)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli import REPO
from tests.fast.test_docs import install_commands
from tests.paced import run_paced

FOLDER = "seqthink-conformance"
"""What the README's install line names: the repository's folder beside the scratch folder's `.venv`."""


def _tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, check=True).stdout
    return [name for name in listed.decode().split("\0") if name and (REPO / name).is_file()]


def _as_a_clone(where: Path) -> None:
    """The checkout's files a clone would hold (nothing ignored: no .venv, caches or reports/latest)."""
    for name in _tracked_files():
        target = where / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)


def _clean_environment() -> dict[str, str]:
    """This machine's environment without the test's own virtualenv and import path: `python3` is the
    system's, as for a user who has just unpacked the harness."""
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH", "CI", "PYTHONHOME"}}
    ours = str(Path(sys.prefix) / "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and p != ours)
    return env


@pytest.mark.evidence("tests/fast/test_docs.py::test_the_readmes_install_makes_a_virtualenv_and_installs_what_is_at_hand",
                      "tests/e2e/test_action.py::test_action_passes_on_the_reference")
def test_the_readmes_install_and_first_run_work_as_written(tmp_path: Path) -> None:
    commands = install_commands((REPO / "README.md").read_text(encoding="utf-8"))
    assert any(re.match(r"python3 -m venv \.venv\b", c) for c in commands), commands
    assert any(f"pip install ./{FOLDER}" in c for c in commands), commands
    assert any(c.startswith("seqthink-conformance run") for c in commands), commands
    _as_a_clone(tmp_path / FOLDER)
    script = " && ".join(["set -e", *commands])
    done = run_paced(["bash", "-c", script], cwd=tmp_path, env=_clean_environment())
    said = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, said
    assert "gate passed" in done.stdout, said
    report = json.loads((tmp_path / "first-report" / "report.json").read_text(encoding="utf-8"))
    assert report["gate"]["passed"] is True
    installed = subprocess.run(
        [str(tmp_path / ".venv" / "bin" / "python"), "-c", "import conformance, importlib.metadata as m; "
         "print(conformance.__file__, m.version('seqthink-conformance'))"],
        cwd=tmp_path, env=_clean_environment(), capture_output=True, text=True, check=True,
    ).stdout.split()
    assert installed[0].startswith(str(tmp_path / ".venv")), installed
    assert installed[1] == report["harness"]["version"], (installed, report["harness"])
