"""The composite action (action.yml), its steps run as a runner would by scripts.run_action: against the
reference the job passes, the summary is the report, a quoted `args` value arrives whole and the uploaded
transcripts are trimmed; against a server that cannot start it fails; a usage error's status passes
through; a baseline whose reasons still say TODO fails the job unless `strict-baseline` is turned off.

The setup-python stand-in's virtualenv sees this test environment's packages after its own
(`--reuse-packages`): the install step still runs as written, resolving every requirement against the
action's constraints and building and installing the harness from the action's checkout into the job's
virtualenv (the job runs that copy), but it no longer downloads and installs every dependency into an empty
Python. That the package installs alone, dependencies and all, into an empty virtualenv is
scripts.check_wheel's check (.ci/run), for the wheel."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.cli import GATE_SEED, GATE_SUITE, Ran, cli_here, fake
from tests.paced import run_paced
from tests.report_links import broken_links

REPO = Path(__file__).resolve().parents[2]
BROKEN = REPO / "tests" / "servers" / "exit_at_start.py"


@dataclass
class Job:
    code: int
    output: str
    work: Path

    @property
    def summary(self) -> str:
        return (self.work / "github_step_summary.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def python_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One virtualenv for the setup-python stand-in, shared by both jobs (the install step fills it)."""
    return tmp_path_factory.mktemp("action-python") / "venv"


def job(work: Path, venv: Path, **inputs: str) -> Job:
    argv = [sys.executable, "-m", "scripts.run_action", "--work", str(work), "--venv", str(venv),
            "--reuse-packages"]
    for name, value in inputs.items():
        argv += ["--input", f"{name.replace('_', '-')}={value}"]
    done = run_paced(argv, cwd=REPO)
    return Job(done.returncode, done.stdout + done.stderr, work)


QUOTED_ARGS = """--env "NOTE=it's;$(touch${IFS}expanded)*" --call-timeout '20'"""
"""Quotes, a quote inside a value, and shell syntax that must arrive as text."""
SELECTED = "RTE-3,RTE-9,OBJ-4,BAP-5"
"""Records whose checks write transcripts, stderr boxes and a witness process: what the job uploads."""


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def test_action_passes_on_the_reference(tmp_path: Path, python_venv: Path) -> None:
    """The job's own install, its inputs quoted, its artifacts and summary, on a few records (the whole gate
    on the reference is tests/e2e/test_cli.py's `test_reference_passes_the_gate`)."""
    ran = job(tmp_path / "ws", python_venv, target="reference", profile="dev", seed="20261129",
              args=f"{QUOTED_ARGS} --select {SELECTED}")
    assert ran.code == 0, ran.output[-4000:]
    where = [python_venv / "bin" / "python", "-c", "import conformance; print(conformance.__file__)"]
    installed = subprocess.run(where, capture_output=True, text=True, timeout=60, check=True, cwd=tmp_path)
    assert Path(installed.stdout.strip()).is_relative_to(python_venv), "not the job's own install"
    title = ran.summary.splitlines()[0]
    assert title.startswith("# Conformance report: ") and title.endswith(" reference"), ran.summary[:300]
    assert "gate passed" in ran.summary
    written = tmp_path / "ws" / "conformance-report"
    uploaded = tmp_path / "ws" / "artifacts" / "conformance-report"
    assert {"report.json", "report.md", "report.html", "junit.xml"} <= {p.name for p in uploaded.iterdir()}
    report = json.loads((uploaded / "report.json").read_text(encoding="utf-8"))
    assert report["target"]["env"] == {"NOTE": "it's;$(touch${IFS}expanded)*"}
    assert not list(tmp_path.rglob("expanded"))
    assert (uploaded / "report.json").read_bytes() == (written / "report.json").read_bytes()
    transcripts = sorted((uploaded / "transcripts").glob("*.jsonl"))
    assert transcripts and all(t.read_bytes().count(b"\n") <= 1500 + 1 + 500 for t in transcripts)
    assert _size(uploaded) <= _size(written)
    print(f"evidence: {_size(written):,} bytes written, {_size(uploaded):,} bytes uploaded")


def test_action_fails_the_job_on_a_broken_server(tmp_path: Path, python_venv: Path) -> None:
    target = "cmd:" + shlex.join([sys.executable, str(BROKEN)])
    ran = job(tmp_path / "ws", python_venv, target=target, profile="dev", args="--jobs 1", transcripts="none")
    assert ran.code == 2, ran.output[-4000:]
    uploaded = tmp_path / "ws" / "artifacts" / "conformance-report"
    assert (uploaded / "report.json").is_file() and not (uploaded / "transcripts").exists()
    assert "could not be checked" in ran.summary or "gate failed" in ran.summary, ran.summary[:500]
    assert "Fail the job by the gate's exit status" in ran.output


def test_action_passes_a_usage_error_through(tmp_path: Path, python_venv: Path) -> None:
    """The job fails with the command line's own status for the same arguments, and its one line."""
    direct = subprocess.run([sys.executable, "-m", "conformance", "run", "--jobs", "0"], capture_output=True,
                            text=True, timeout=60, check=False, cwd=tmp_path)
    assert direct.returncode != 0
    ran = job(tmp_path / "ws", python_venv, target="reference", args="--jobs 0", cache="false")
    assert ran.code == direct.returncode, ran.output[-4000:]
    assert direct.stderr.strip().splitlines()[-1] in ran.output
    assert "wrote no report" in ran.summary


class Unsplit(NamedTuple):
    """A job whose args no shell can split, in a checkout carrying modules of Python's and pip's names."""

    job: Job
    planted: Path
    """Written by any planted module that runs."""


@pytest.fixture(scope="module")
def unsplit(tmp_path_factory: pytest.TempPathFactory, python_venv: Path) -> Unsplit:
    """A fork's checkout (the workspace every step starts in) carrying `shlex.py` and `pip/__main__.py`, and
    args with an unclosed quote: one job for the refusal and for the steps importing nothing of the checkout
    (the planted files change nothing else of the job when none of them runs)."""
    folder = tmp_path_factory.mktemp("action-unsplit")
    work, planted = folder / "ws", folder / "planted-ran"
    (work / "pip").mkdir(parents=True)
    for name in ("shlex.py", "pip/__init__.py", "pip/__main__.py"):
        (work / name).write_text(f"open({str(planted)!r}, 'a').write({name!r} + '\\n')\n", encoding="utf-8")
    ran = job(work, python_venv, target="reference", args='--env "NOTE=unclosed', node_version="")
    return Unsplit(ran, planted)


def test_action_refuses_args_it_cannot_split(unsplit: Unsplit) -> None:
    ran = unsplit.job
    assert ran.code == 4, ran.output[-4000:]
    assert "the action's args cannot be split as a shell would" in ran.output
    assert "wrote no report (exit status 4)" in ran.summary


def test_action_runs_no_python_from_the_checkout(unsplit: Unsplit) -> None:
    """The action's steps import neither planted module, so the args are still refused by the real shlex,
    and pip installs."""
    ran, planted = unsplit
    assert not planted.exists(), planted.read_text(encoding="utf-8")
    assert ran.code == 4, ran.output[-4000:]
    said = "the action's args cannot be split as a shell would: ValueError: No closing quotation"
    assert said in ran.output


@pytest.fixture(scope="module")
def lenient_found(hostile_gate: Ran, tmp_path_factory: pytest.TempPathFactory, python_venv: Path) -> Job:
    """A job with `strict-baseline` off and no `baseline` input, the hostile gate's baseline as `baseline -o`
    writes it (every reason TODO) where the README writes it: its passing shows both that the checkout's
    baseline is found and that strictness turned off accepts its departures (one job for the two tests)."""
    work = tmp_path_factory.mktemp("action-lenient") / "found"
    wrote = cli_here("baseline", str(hostile_gate.out / "report.json"), "-o",
                     str(work / ".conformance" / "baseline.yaml"))
    assert wrote.code == 0, wrote.stderr
    args = shlex.join(["--suite", GATE_SUITE, "--seed", GATE_SEED])
    return job(work, python_venv, target=fake("hostile"), profile="dev", args=args, transcripts="none",
               cache="false", strict_baseline="false")


def test_action_is_strict_about_unexplained_baseline_entries_by_default(
    hostile_gate: Ran, tmp_path: Path, python_venv: Path, lenient_found: Job
) -> None:
    """A baseline as `baseline -o` writes it (every reason TODO) fails the job unless `strict-baseline` is
    turned off, when the same departures are accepted (`lenient_found`: the same command's baseline)."""
    baseline = tmp_path / "baseline.yaml"
    wrote = cli_here("baseline", str(hostile_gate.out / "report.json"), "-o", str(baseline))
    assert wrote.code == 0, wrote.stderr
    assert baseline.read_text(encoding="utf-8") == (
        lenient_found.work / ".conformance" / "baseline.yaml").read_text(encoding="utf-8")
    args = shlex.join(["--suite", GATE_SUITE, "--seed", GATE_SEED])
    strict = job(tmp_path / "strict", python_venv, target=fake("hostile"), baseline=str(baseline),
                 profile="dev", args=args, transcripts="none", cache="false")
    assert strict.code == 1, strict.output[-4000:]
    assert re.search(r"baseline reasons? still says? TODO", strict.summary), strict.summary[:800]
    assert lenient_found.code == 0, lenient_found.output[-4000:]


def test_action_finds_the_baseline_where_the_readme_writes_it(lenient_found: Job) -> None:
    """No `baseline` input: the checkout's `.conformance/baseline.yaml` (where the README, the terminal and
    report.md write it) is the gate's baseline, its departures accepted."""
    found = lenient_found
    assert found.code == 0, found.output[-4000:]
    assert "baseline: .conformance/baseline.yaml (found in the checkout" in found.output
    # The check every test's own folder gets (tests/e2e/conftest.py): the report the job wrote links only
    # files that exist (its uploaded copy leaves the transcripts out, as asked).
    assert broken_links(found.work / "conformance-report") == []


PR_BASELINE = (
    "format: seqthink-compare-baseline/1\naccepted:\n"
    "  - id: tools_list.inputSchema.changed\n    reason: the pull request restores required\n"
)


def _pull_request_job(folder: Path) -> Job:
    """Mode pull-request on 2026.7.4 → 2026.8.31, in a virtualenv of its own (the other jobs' install step
    fills theirs), so it runs beside them."""
    baseline = folder / "compare-baseline.yaml"
    baseline.write_text(PR_BASELINE, encoding="utf-8")
    return job(folder / "ws", folder / "venv", mode="pull-request", base="npm:2026.7.4", head="npm:2026.8.31",
               baseline=str(baseline), profile="dev", seed="20261129", args="--budget 1", transcripts="none")


@pytest.fixture(scope="module", autouse=True)
def pull_request_job(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, ahead: ThreadPoolExecutor
) -> Future[Job] | None:
    """The pull-request job when its test is selected, made ahead from the module's first test on: it mostly
    waits on compare's clocks and process starts, while the jobs before it run."""
    wanted = any(isinstance(item, pytest.Function) and item.module is request.module
                 and item.originalname == "test_action_pull_request_mode_on_a_real_change"
                 for item in request.session.items)
    return ahead.submit(_pull_request_job, tmp_path_factory.mktemp("pull-request")) if wanted else None


def test_action_pull_request_mode_on_a_real_change(pull_request_job: Future[Job] | None) -> None:
    """Mode pull-request on 2026.7.4 → 2026.8.31 (base and head as a workflow would have built them): the
    job summary gets the headline table, the comment file stays under GitHub's limit and names what the
    pull request does not declare, and the job fails on those; the one declared difference reads so.

    What it checks (the changed inputSchema, declared; the changed serverInfo version, not) is seen by
    compare's fresh processes before any search, so the search gets 1 s (20 s of search and probes
    added a minute and nothing checked here)."""
    assert pull_request_job is not None
    ran = pull_request_job.result()
    assert ran.code == 1, ran.output[-4000:]
    assert "## Behaviour differences: base vs head" in ran.summary, ran.summary[:1000]
    assert "| `tool-spec` |" in ran.summary and "not declared: the check fails" in ran.summary
    comment = (ran.work / "runner-temp" / "seqthink-pr-comment.md").read_text(encoding="utf-8")
    assert len(comment) <= 65_536
    assert "declared: " in comment and "(`tools_list.inputSchema.changed`)" in comment
    assert "**not declared**" in comment and "```yaml" in comment
    uploaded = ran.work / "artifacts" / "conformance-report"
    report = json.loads((uploaded / "report.json").read_text(encoding="utf-8"))
    assert report["comparison"]["label_a"] == "base" and report["comparison"]["label_b"] == "head"
    assert "Fail the job by the gate's exit status" in ran.output
    # The check every test's own folder gets (tests/e2e/conftest.py): the report the job wrote links only
    # files that exist (its uploaded copy leaves the transcripts out, as asked).
    assert broken_links(ran.work / "conformance-report") == []
