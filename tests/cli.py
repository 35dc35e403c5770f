"""`python -m conformance` as the tests call it: in a child process as a user types it, or in this process
for commands that start no server; the stand-in suite and the fake server the CLI tests run it on."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped, unused-ignore]

from conformance.cli.main import main
from conformance.report.json import shipped_schema
from conformance.report.model import Report
from tests.paced import STALL, run_paced
from tests.servers import TAG_VARIABLE

REPO = Path(__file__).resolve().parent.parent
FAKE = REPO / "tests" / "cli_servers" / "fake.py"
GATE_SUITE = str(REPO / "tests" / "cli_suite" / "gate_suite.py")
"""Named so the harness's own test run does not collect it; `--suite` names the file, so the run does."""
GATE_SEED = "20260821"
"""The seed of the stand-in suite's runs: a test comparing its own run with the session's uses it too."""
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass
class Ran:
    code: int
    stdout: str
    stderr: str
    out: Path

    @property
    def report(self) -> dict[str, Any]:
        """report.json, checked against the shipped schema on every read."""
        loaded: dict[str, Any] = json.loads((self.out / "report.json").read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator(shipped_schema()).validate(loaded)
        return loaded

    def verdicts(self) -> dict[str, str]:
        return {r["id"]: r["verdict"] for r in self.report["records"]}


@dataclass
class CountedRun:
    """A run, the profile and seed it was asked for, and the pids its reference servers logged as they
    started (counted by the servers, not by the harness)."""

    ran: Ran
    profile: str
    seed: str
    starts: list[str]


WRITTEN: list[Path] = []
"""Every `--out` folder `cli` has run a command into, in this process: tests/e2e/conftest.py checks each
report written there for links to files that are not."""


def cli(*args: str, out: Path | None = None, stall: float = STALL, env: dict[str, str] | None = None) -> Ran:
    """A child process from the repository root, without CI (the profile is the one asked for); `env` is
    added to this process's environment, a PYTHONPATH in it goes before the repository's. Waited for while
    it writes (`tests/paced.py`): a slow run on a loaded machine ends on its own; `stall` s silent fail it."""
    extra = dict(env or {})
    path = [extra.pop("PYTHONPATH", ""), str(REPO), os.environ.get("PYTHONPATH", "")]
    child = {**os.environ, **extra, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
    child.pop("CI", None)
    argv = [sys.executable, "-m", "conformance", *args]
    if out is not None:
        argv += ["--out", str(out)]
    done = run_paced(argv, cwd=REPO, env=child, stall=stall)
    if out is not None:
        WRITTEN.append(out)
    return Ran(done.returncode, done.stdout, done.stderr, out or REPO)


def cli_here(*args: str) -> Ran:
    """The same entry point in this process, for commands that start no server and no pytest."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return Ran(code, out.getvalue(), err.getvalue(), REPO)


class Started:
    """A command of the command line in a child process, as CI starts it: its stdout read line by line as it
    comes, every process it starts findable by an environment tag (`tests.servers.tagged`)."""

    def __init__(self, *args: str) -> None:
        self.tag = uuid.uuid4().hex
        env = {**os.environ, TAG_VARIABLE: self.tag,
               "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        env.pop("CI", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "conformance", *args], cwd=REPO, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def stop(self, sig: signal.Signals) -> tuple[int, float]:
        """Send `sig`; the exit status and the seconds it took to come."""
        start = time.monotonic()
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout=120)
        return code, time.monotonic() - start

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _default_sigint() -> None:
    """A CI shell may start us with SIGINT ignored, and a child inherits that; the CLI honours it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def fake(mode: str) -> str:
    """A `cmd:` target for tests/cli_servers/fake.py in `mode` (hostile, exit, no-tool, garbage)."""
    return "cmd:" + shlex.join([sys.executable, str(FAKE), mode])


def stalls(calls: int, mark: Path | None = None) -> str:
    """A `cmd:` target for tests/servers/stalls.py: the reference until `calls` tool calls were answered, then
    silent (creating `mark`): a run, compare or atlas against it cannot finish before a signal or a deadline
    (give it a call timeout longer than the test)."""
    return "cmd:" + shlex.join([sys.executable, str(REPO / "tests" / "servers" / "stalls.py"), str(calls),
                                *([str(mark)] if mark is not None else [])])


def wait_for_file(path: Path, running: subprocess.Popen[str] | subprocess.Popen[bytes],
                  timeout: float = 300.0) -> None:
    """Until `path` exists (a stalled server's mark), failing early if the command ended first."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert running.poll() is None, f"ended before {path.name} appeared"
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.1)


def assert_one_clean_error_line(ran: Ran) -> None:
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1, ran.stderr
    assert lines[0].startswith("seqthink-conformance: error: "), lines[0]
    assert "Traceback" not in ran.stdout + ran.stderr
    assert not CONTROL.search(ran.stdout + ran.stderr), repr(ran.stdout + ran.stderr)


def run_dev(spec: str, out: Path, seed: int, baseline: Path | None = None, *extra: str) -> tuple[int, Report]:
    """`run` of a target in the dev profile under `seed` (against `baseline` when given, with `extra`
    options), as a user types it: its exit status and the report it wrote."""
    argv = [sys.executable, "-m", "conformance", "run", "--target", spec, "--profile", "dev",
            "--seed", str(seed), "--out", str(out), *extra]
    if baseline is not None:
        argv += ["--baseline", str(baseline)]
    proc = run_paced(argv, cwd=REPO)
    assert (out / "report.json").is_file(), proc.stderr[-2000:]
    return proc.returncode, Report.model_validate_json((out / "report.json").read_text(encoding="utf-8"))
