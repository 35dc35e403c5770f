"""Every command a red run prints pastes and runs as it is: the terminal's "next:" lines, report.md's next
steps and its rerun line, each run by a shell in the folder the run was started in, in the order printed.
A placeholder, a path only one of them names or an escaped character fails here."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from conformance.core.outfolder import BASELINE_PATH
from tests.e2e.test_forks import make_fork

_NEXT = re.compile(r"^next: .*?: ((?:python|seqthink-conformance) .*)$")
_SH_BLOCK = re.compile(r"^```sh\n(.*?)\n```$", re.MULTILINE | re.DOTALL)


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`command` as a user pastes it into a shell whose `python` is this harness's."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "CONFORMANCE_PROFILE")}  # dev profile
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def _departed(report: Path) -> list[str]:
    data = json.loads(report.read_text(encoding="utf-8"))
    return sorted(r["id"] for r in data["records"] if r["verdict"] in ("deviates", "error"))


def test_a_red_runs_printed_commands_run_as_pasted(tmp_path: Path) -> None:
    make_fork(tmp_path / "src" / "sequentialthinking", 'version: "0.2.0",', 'version: "0.2.0-fork.1",')
    red = _shell('python -m conformance run --target "cmd:node src/sequentialthinking/dist/index.js" '
                 "--out conformance-report", tmp_path)
    assert red.returncode == 1, red.stdout[-2000:] + red.stderr[-2000:]
    printed = [m.group(1) for line in red.stdout.splitlines() if (m := _NEXT.match(line))]
    report_md = (tmp_path / "conformance-report" / "report.md").read_text(encoding="utf-8")
    blocks = _SH_BLOCK.findall(report_md)
    assert printed, red.stdout[-2000:]
    # report.md's next steps are the terminal's, word for word, and its rerun line comes after them.
    assert blocks[: len(printed)] == printed, (blocks, printed)
    assert len(blocks) == len(printed) + 1 and blocks[-1].startswith("python -m conformance run "), blocks
    assert all("REPORT_DIR" not in b and "\\-" not in b for b in blocks), blocks
    assert sum(BASELINE_PATH in b for b in printed) == 2, printed  # written, then used: one path

    departed = _departed(tmp_path / "conformance-report" / "report.json")
    wrote = _shell(printed[0], tmp_path)
    assert wrote.returncode == 0, wrote.stdout + wrote.stderr
    baseline = yaml.safe_load((tmp_path / BASELINE_PATH).read_text(encoding="utf-8"))
    assert baseline["deviations"], baseline
    again = _shell(printed[1], tmp_path)
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    assert "gate passed" in again.stdout, again.stdout[-2000:]

    rerun = _shell(blocks[-1], tmp_path)  # the same examples, no baseline: red again, the same records
    assert rerun.returncode == 1, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    assert _departed(tmp_path / "reports" / "latest" / "report.json") == departed
