"""A fork maintainer's first hour, from the README's own commands: a copy of the original, renamed and with
one change (its serverInfo version), laid out as a fork of the monorepo; the README's run is red, its
baseline command writes the departures with TODO reasons under the fork's name, the reasons are filled
in, and the README's run with the baseline is green. The commands are read from the README, so a README
that stops working fails here (their options against the parser: tests/fast/test_docs.py).

Every command that red run prints pastes and runs as it is: the terminal's "next:" lines, report.md's next
steps and its rerun line, each run by a shell in the folder the run was started in, the next steps in the
order printed (the rerun line, which needs none of them, beside them).
A placeholder, a path only one of them names or an escaped character fails here.

The red run is made once: each test starts from a copy of its folder (the fork, its report, its output).
The README's own walk is an evidence case (`tox -e evidence`): its commands parse (tests/fast/test_docs.py),
and the same walk by the commands the red run prints, red to baseline to green, is checked in CI here."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pytest
import yaml

from conformance.core.outfolder import BASELINE_PATH
from conformance.report.model import Report
from tests.e2e.ahead import used
from tests.e2e.test_forks import make_fork
from tests.e2e.test_modified_servers import assert_causes_name_the_change
from tests.modified_servers.servers import load_modifications
from tests.paced import run_paced
from tests.report_links import broken_links

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
    return run_paced([sys.executable, *argv[1:]], cwd=cwd, env=env)


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


class Green(NamedTuple):
    """The README's baseline step on a copy of the red run's folder, the reasons filled in, and its rerun."""

    folder: Path
    wrote: subprocess.CompletedProcess[str]
    green: subprocess.CompletedProcess[str] | None


def _readme_green(red: Red, tmp_path: Path) -> Green:
    _, baseline, rerun = readme_steps()
    folder = _copy(red, tmp_path)
    wrote = _run(baseline, folder)
    if wrote.returncode != 0:
        return Green(folder, wrote, None)
    baseline_file = folder / baseline[baseline.index("-o") + 1]
    declared = yaml.safe_load(baseline_file.read_text(encoding="utf-8"))
    (folder / "written.yaml").write_text(yaml.safe_dump(declared, sort_keys=False), encoding="utf-8")
    for entry_ in declared["deviations"]:
        entry_["reason"] = "the fork says its own version in serverInfo"
    baseline_file.write_text(yaml.safe_dump(declared, sort_keys=False), encoding="utf-8")
    return Green(folder, wrote, _run(rerun, folder))


@pytest.mark.evidence("tests/e2e/test_fork_maintainer.py::test_a_red_runs_printed_commands_run_as_pasted",
                      "tests/fast/test_docs.py::test_every_documented_command_parses",
                      "tests/e2e/test_baseline_cli.py::test_baseline_from_2025_12_18_fails_on_2026_7_4_naming_the_changed_departures")
def test_readme_path_from_red_to_green(red: Red, green_steps: Green) -> None:
    run, baseline, rerun = readme_steps()
    assert run[3:5] == ["run", "--target"] and "--baseline" in rerun and "baseline" in baseline
    assert red.run.returncode == 1, red.run.stdout[-2000:] + red.run.stderr[-2000:]
    folder, wrote, green = green_steps
    report = json.loads((red.folder / "conformance-report" / "report.json").read_text(encoding="utf-8"))
    advisory = {e["record"] for e in report["gate"]["advisory"]}  # guidance: never gates, never written
    departed = sorted(r["id"] for r in report["records"]
                      if r["verdict"] in ("deviates", "error") and r["id"] not in advisory)
    assert departed, "the changed serverInfo version departs from some record"

    assert wrote.returncode == 0, wrote.stderr
    declared = yaml.safe_load((folder / "written.yaml").read_text(encoding="utf-8"))
    assert declared["project"] == FORK_NAME
    # One entry per root cause (/3), the departures it explains folded under it.
    assert sorted(r for d in declared["deviations"]
                  for r in [d["record"], *(e["record"] for e in d.get("explains", []))]) == departed
    assert all("TODO" in d["reason"] for d in declared["deviations"])

    assert green is not None
    assert green.returncode == 0, green.stdout[-2000:] + green.stderr[-2000:]
    assert "gate passed" in (folder / "conformance-report" / "report.md").read_text(encoding="utf-8")
    # The check every test's own folder gets (tests/e2e/conftest.py), on the copy the steps ran in.
    assert broken_links(folder) == []


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`command` as a user pastes it into a shell whose `python` is this harness's."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "CONFORMANCE_PROFILE")}  # dev profile
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return run_paced(["bash", "-c", command], cwd=cwd, env=env)


def _departed(report: Path) -> list[str]:
    data = json.loads(report.read_text(encoding="utf-8"))
    return sorted(r["id"] for r in data["records"] if r["verdict"] in ("deviates", "error"))


class Pasted(NamedTuple):
    """The red run's printed commands, pasted into a shell in a copy of its folder; a next step after one
    that failed is not run (None)."""

    folder: Path
    wrote: subprocess.CompletedProcess[str] | None
    again: subprocess.CompletedProcess[str] | None
    rerun: subprocess.CompletedProcess[str] | None


def _printed(red: Red) -> list[str]:
    return [m.group(1) for line in red.run.stdout.splitlines() if (m := _NEXT.match(line))]


def _blocks(red: Red) -> list[str]:
    return _SH_BLOCK.findall((red.folder / "conformance-report" / "report.md").read_text(encoding="utf-8"))


def _pasted(red: Red, tmp_path: Path) -> Pasted:
    """The next steps in order, each after the one before succeeded; the rerun line beside them: it reads
    nothing they write (no baseline, its own `--out`), and a run mostly waits on the fork's processes and
    clocks, so the two sequences overlap instead of adding up."""
    folder = _copy(red, tmp_path)
    printed, blocks = _printed(red), _blocks(red)
    if len(printed) < 2 or len(blocks) != len(printed) + 1:
        return Pasted(folder, None, None, None)  # the test says why
    with ThreadPoolExecutor(1, thread_name_prefix="rerun-line") as beside:
        rerun = beside.submit(_shell, blocks[-1], folder)
        wrote = _shell(printed[0], folder)
        again = _shell(printed[1], folder) if wrote.returncode == 0 else None
        return Pasted(folder, wrote, again, rerun.result())


class Steps(NamedTuple):
    """The two tests' command sequences, each on its own copy of the red run's folder, made side by side on
    the session's `ahead` pool once the red run exists (a run mostly waits on the fork's processes and clocks,
    so its neighbour fills the other core); None when its test is not selected."""

    green: Future[Green] | None
    pasted: Future[Pasted] | None


@pytest.fixture(scope="module")
def steps(request: pytest.FixtureRequest, red: Red, tmp_path_factory: pytest.TempPathFactory,
          ahead: ThreadPoolExecutor) -> Steps:
    wanted = used(request, ["green_steps", "pasted_steps"])
    green, pasted = tmp_path_factory.mktemp("green"), tmp_path_factory.mktemp("pasted")
    return Steps(ahead.submit(_readme_green, red, green) if "green_steps" in wanted else None,
                 ahead.submit(_pasted, red, pasted) if "pasted_steps" in wanted else None)


@pytest.fixture(scope="module")
def green_steps(steps: Steps) -> Green:
    assert steps.green is not None
    return steps.green.result()


@pytest.fixture(scope="module")
def pasted_steps(steps: Steps) -> Pasted:
    assert steps.pasted is not None
    return steps.pasted.result()


def test_a_red_runs_printed_commands_run_as_pasted(red: Red, pasted_steps: Pasted) -> None:
    assert red.run.returncode == 1, red.run.stdout[-2000:] + red.run.stderr[-2000:]
    printed, blocks = _printed(red), _blocks(red)
    assert printed, red.run.stdout[-2000:]
    # report.md's next steps are the terminal's, word for word, and its rerun line comes after them.
    assert blocks[: len(printed)] == printed, (blocks, printed)
    assert len(blocks) == len(printed) + 1 and blocks[-1].startswith("python -m conformance run "), blocks
    assert all("REPORT_DIR" not in b and "\\-" not in b for b in blocks), blocks
    assert sum(BASELINE_PATH in b for b in printed) == 2, printed  # written, then used: one path

    folder, wrote, again, rerun = pasted_steps
    departed = _departed(red.folder / "conformance-report" / "report.json")
    assert wrote is not None and wrote.returncode == 0, wrote and wrote.stdout + wrote.stderr
    baseline = yaml.safe_load((folder / BASELINE_PATH).read_text(encoding="utf-8"))
    assert baseline["deviations"], baseline
    assert again is not None and again.returncode == 0, again and again.stdout[-2000:] + again.stderr[-2000:]
    assert "gate passed" in again.stdout, again.stdout[-2000:]

    # The same examples, no baseline: red again, the same records.
    assert rerun is not None and rerun.returncode == 1, rerun and rerun.stdout[-2000:] + rerun.stderr[-2000:]
    assert _departed(folder / "reports" / "latest" / "report.json") == departed
    assert broken_links(folder) == []  # as every test's own folder (tests/e2e/conftest.py)


def test_the_red_runs_root_cause_is_the_changed_version(red: Red) -> None:
    """The fork's one change, serverInfo's version, is its report's root cause, every other departure under
    it: test_modified_servers.py's check of a one-change fork, on this run of that change (`server-version`,
    tests/modified_servers/, patches the same line)."""
    assert red.run.returncode == 1, red.run.stdout[-2000:] + red.run.stderr[-2000:]
    out = red.folder / "conformance-report"
    report = Report.model_validate_json((out / "report.json").read_text(encoding="utf-8"))
    [changed] = [mod for mod in load_modifications() if mod.id == "server-version"]
    assert_causes_name_the_change(changed, report, (out / "report.md").read_text(encoding="utf-8"))
