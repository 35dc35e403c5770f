"""A fork maintainer's first hour, from the README's own commands: a copy of the original, renamed and with
one change (its serverInfo version), laid out as a fork of the monorepo; the README's run is red, its
baseline command writes the departures with TODO reasons under the fork's name, the reasons are filled
in, and the README's run with the baseline is green. The commands are read from the README, so a README
that stops working fails here (their options against the parser: tests/fast/test_docs.py)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

from tests.e2e.test_forks import make_fork

REPO = Path(__file__).resolve().parents[2]
FORK_NAME = "@example/sequential-thinking-fork"


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


def test_readme_path_from_red_to_green(tmp_path: Path) -> None:
    run, baseline, rerun = readme_steps()
    assert run[3:5] == ["run", "--target"] and "--baseline" in rerun and "baseline" in baseline
    entry = run[run.index("--target") + 1].removeprefix("cmd:node ")
    package = tmp_path / Path(entry).parent.parent  # src/sequentialthinking, as in the monorepo
    make_fork(package, 'version: "0.2.0",', 'version: "0.2.0-fork.1",')
    manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    (package / "package.json").write_text(json.dumps({**manifest, "name": FORK_NAME}), encoding="utf-8")

    red = _run(run, tmp_path)
    assert red.returncode == 1, red.stdout[-2000:] + red.stderr[-2000:]
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
