"""A fork maintainer's first hour, from the README's own commands: a copy of the original, renamed and with
one change (its serverInfo version), laid out as a fork of the monorepo; the README's run is red, its
baseline command writes the departures with TODO reasons under the fork's name, the reasons are filled
in, and the README's run with the baseline is green. The commands are read from the README, so a README
that stops working fails here (their options against the parser: tests/fast/test_docs.py).

Every command that red run prints pastes and runs as it is: the terminal's "next:" lines, report.md's next
steps and its rerun line, each run by a shell in the folder the run was started in, in the order printed.
A placeholder, a path only one of them names or an escaped character fails here.

The red run is made once: each test starts from a copy of its folder (the fork, its report, its output)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from conformance.core.outfolder import BASELINE_PATH
from tests.e2e.test_forks import make_fork

REPO = Path(__file__).resolve().parents[2]
FORK_NAME = "@example/sequential-thinking-fork"
_NEXT = re.compile(r"^next: .*?: ((?:python|seqthink-conformance) .*)$")
_SH_BLOCK = re.compile(r"^```sh\n(.*?)\n```$", re.MULTILINE | re.DOTALL)


def readme_steps() -> list[list[str]]:
    """The commands of the README's "Gate your fork locally" section, in order, as argv lists (a
    `mkdir -p DIR && ` before one is kept as its first three words)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Gate your fork locally") :]
    section = section[: section.index("\n## ", 1)]
    return [shlex.split(line.strip().replace(" && ", " ")) for line in section.splitlines()
            if re.match(r"\s{4,}(mkdir -p \S+ && )?python -m conformance ", line)]


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    if argv[:2] == ["mkdir", "-p"]:
        (cwd / argv[2]).mkdir(parents=True, exist_ok=True)
        argv = argv[3:]
    assert argv[:3] == ["python", "-m", "conformance"], argv
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "CONFORMANCE_PROFILE")}  # dev profile
    return subprocess.run([sys.executable, *argv[1:]], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


@dataclass(frozen=True)
class Red:
    folder: Path
    """Where the fork lives and its red run was started."""
    run: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def red(tmp_path_factory: pytest.TempPathFactory) -> Red:
    """The README's fork (renamed, one change) and its README run, red, made once for the module's tests."""
    folder = tmp_path_factory.mktemp("fork")
    run = readme_steps()[0]
    assert run[3:5] == ["run", "--target"], run
    entry = run[run.index("--target") + 1].removeprefix("cmd:node ")
    package = folder / Path(entry).parent.parent  # src/sequentialthinking, as in the monorepo
    make_fork(package, 'version: "0.2.0",', 'version: "0.2.0-fork.1",')
    manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    (package / "package.json").write_text(json.dumps({**manifest, "name": FORK_NAME}), encoding="utf-8")
    return Red(folder, _run(run, folder))


def _copy(red: Red, tmp_path: Path) -> Path:
    """The red run's folder, copied for one test (the fork's node_modules link kept a link)."""
    shutil.copytree(red.folder, tmp_path / "fork", symlinks=True)
    return tmp_path / "fork"


def test_readme_path_from_red_to_green(red: Red, tmp_path: Path) -> None:
    run, baseline, rerun = readme_steps()
    assert run[3:5] == ["run", "--target"] and "--baseline" in rerun and "baseline" in baseline
    tmp_path = _copy(red, tmp_path)
    assert red.run.returncode == 1, red.run.stdout[-2000:] + red.run.stderr[-2000:]
    report = json.loads((tmp_path / "conformance-report" / "report.json").read_text(encoding="utf-8"))
    advisory = {e["record"] for e in report["gate"]["advisory"]}  # guidance: never gates, never written
    departed = sorted(r["id"] for r in report["records"]
                      if r["verdict"] in ("deviates", "error") and r["id"] not in advisory)
    assert departed, "the changed serverInfo version departs from some record"

    wrote = _run(baseline, tmp_path)
    assert wrote.returncode == 0, wrote.stderr
    baseline_file = tmp_path / baseline[baseline.index("-o") + 1]
    declared = yaml.safe_load(baseline_file.read_text(encoding="utf-8"))
    assert declared["project"] == FORK_NAME
    # One entry per root cause (/3), the departures it explains folded under it.
    assert sorted(r for d in declared["deviations"]
                  for r in [d["record"], *(e["record"] for e in d.get("explains", []))]) == departed
    assert all("TODO" in d["reason"] for d in declared["deviations"])
    for entry_ in declared["deviations"]:
        entry_["reason"] = "the fork says its own version in serverInfo"
    baseline_file.write_text(yaml.safe_dump(declared, sort_keys=False), encoding="utf-8")

    green = _run(rerun, tmp_path)
    assert green.returncode == 0, green.stdout[-2000:] + green.stderr[-2000:]
    assert "gate passed" in (tmp_path / "conformance-report" / "report.md").read_text(encoding="utf-8")


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`command` as a user pastes it into a shell whose `python` is this harness's."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "CONFORMANCE_PROFILE")}  # dev profile
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def _departed(report: Path) -> list[str]:
    data = json.loads(report.read_text(encoding="utf-8"))
    return sorted(r["id"] for r in data["records"] if r["verdict"] in ("deviates", "error"))


def test_a_red_runs_printed_commands_run_as_pasted(red: Red, tmp_path: Path) -> None:
    tmp_path = _copy(red, tmp_path)
    assert red.run.returncode == 1, red.run.stdout[-2000:] + red.run.stderr[-2000:]
    printed = [m.group(1) for line in red.run.stdout.splitlines() if (m := _NEXT.match(line))]
    report_md = (tmp_path / "conformance-report" / "report.md").read_text(encoding="utf-8")
    blocks = _SH_BLOCK.findall(report_md)
    assert printed, red.run.stdout[-2000:]
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
