"""A fork that crashes, hangs or writes garbage on every call ends in a report quickly, not in an hour of
shrinking: the first failure of the target stops its test, the breaker stops the run (docs/robustness.md).

Each run drives tests/servers/broken.py through the command line, as a fork's CI would; the module's runs
are made ahead, two at a time. A run is bounded in CPU seconds, its own and its servers' (`tests/costs.py`):
the same on a loaded machine as on an idle one, where a wall-clock bound failed CI under load. The wall clock
only catches a hang; `python -m benchmarks.robustness` measures the real figures.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.suite.breaker import CONSECUTIVE
from tests.costs import measured
from tests.e2e.ahead import selected
from tests.servers import TAG_VARIABLE, command, tagged

REPO = Path(__file__).resolve().parents[2]
CPU_SECONDS = 60.0
"""The CPU a dev run against a broken server may spend, its servers' included (a few seconds when idle)."""
STALL = 1800.0
"""A run still going after this much wall time is stuck (a hang costs no CPU); no slow machine reaches it."""


@dataclass
class Finished:
    out: Path
    code: int
    seconds: float
    """CPU seconds of the run and of every process it reaped (its servers)."""
    stdout: str
    stderr: str
    report: dict[str, Any]
    left: list[int]


def broken(mode: str) -> str:
    return "cmd:" + shlex.join(command("broken", mode))


def run_cli(target: str, out: Path, *extra: str, timeout: float = STALL) -> Finished:
    """One `conformance run` in a child process, its CPU seconds; which of its servers are still running once
    it is done."""
    tag = uuid.uuid4().hex
    env = {**os.environ, TAG_VARIABLE: tag,
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("CI", None)
    argv = [sys.executable, "-m", "conformance", "run", "--target", target, "--seed", "7", "--out", str(out),
            *extra]
    done = measured(argv, cwd=REPO, env=env, hang_seconds=timeout)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return Finished(out, done.code, done.cpu_seconds, done.stdout, done.stderr, report, tagged(tag))


FAILING = ("crash", "hang", "garbage")
"""Modes that fail every call (run with a 2 s call timeout); the others answer every call wrongly."""


@pytest.fixture(scope="module")
def failing(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, ahead: ThreadPoolExecutor
) -> Callable[[str], Finished]:
    """One dev run per mode, the selected tests' modes made ahead: the crash run is checked by the test of
    every failing mode and by the test of its recorded exchange."""
    made: dict[str, Future[Finished]] = {}

    def start(mode: str) -> Future[Finished]:
        if mode not in made:
            extra = ("--call-timeout", "2") if mode in FAILING else ()
            out = tmp_path_factory.mktemp(mode)
            made[mode] = ahead.submit(run_cli, broken(mode), out, "--profile", "dev", *extra)
        return made[mode]

    for mode in selected(request, "mode"):
        start(mode)
    return lambda mode: start(mode).result()


def verdicts(report: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for record in report["records"]:
        grouped.setdefault(record["verdict"], []).append(record)
    return grouped


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("crash", "server exited with status 1"),
        ("hang", "no answer to 'tools/call'"),
        ("garbage", "stdout line is not JSON"),
    ],
)
def test_a_target_failing_every_call_ends_fast_with_errors(
    mode: str, says: str, failing: Callable[[str], Finished]
) -> None:
    """Every call dies, hangs or is answered with garbage: the run ends in a report saying `error` with the
    reason, the breaker stops it early (the rest `not run`), exit 1, and no server is left."""
    ran = failing(mode)
    print(f"{mode}: {ran.seconds:.1f} CPU s, exit {ran.code}")
    assert ran.code in (1, 2), ran.stderr
    assert "Traceback" not in ran.stdout + ran.stderr
    assert ran.seconds < CPU_SECONDS, f"{ran.seconds:.1f} CPU seconds"
    grouped = verdicts(ran.report)
    errors = grouped.get("error", [])
    assert errors, grouped.keys()
    assert all(says in record["reason"] and record["reason"].startswith("target failure: ")
               for record in errors), [r["reason"] for r in errors]
    # A failure of the target is not a counterexample of the check that was running; but a line on stdout
    # that is not JSON-RPC is itself CMP-4's departure ("nothing else is written to stdout"), its one cause.
    departing = [record["id"] for record in grouped.get("deviates", [])]
    assert departing == (["CMP-4"] if mode == "garbage" else []), departing
    assert [c["records"] for c in ran.report["root_causes"]] == ([["CMP-4"]] if mode == "garbage" else [])
    failing = [t for record in errors for t in record["tests"] if t["status"] == "error"]
    assert len({t["nodeid"] for t in failing}) == CONSECUTIVE
    assert all(t["examples"] <= 2 for t in failing), "the failing test stopped at its first example"
    replays = [record["counterexample"]["replay"] for record in errors if record["counterexample"]]
    assert replays and all(any('"tools/call"' in frame for frame in replay) for replay in replays), replays
    stopped = ran.report["run"]["interrupted"]
    assert stopped is not None and "stopped early" in stopped, stopped
    assert all(record["reason"] == f"not run: {stopped}" for record in grouped["not run"])
    assert ran.report["gate"]["passed"] is False
    assert ran.left == [], f"servers left running: {ran.left}"


def test_the_failing_exchange_is_recorded(failing: Callable[[str], Finished]) -> None:
    """The record carries the exchange during which the target died, ending with its death."""
    ran = failing("crash")
    tests = [t for r in verdicts(ran.report)["error"] for t in r["tests"] if t["status"] == "error"]
    assert tests
    transcript = ran.out / tests[0]["transcript"]
    events = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert any(e["kind"] == "note" and "server exited with status 1" in e["data"] for e in events)
    assert ran.left == []


@pytest.mark.parametrize("mode", ["reject", "same"])
def test_a_target_deviating_everywhere_shrinks_within_budget(
    mode: str, failing: Callable[[str], Finished]
) -> None:
    """A server that rejects every call (or gives every call the same answer) deviates almost everywhere:
    shrinking is bounded, so the run ends, exit 1, and counterexamples cut short say so."""
    ran = failing(mode)
    print(f"{mode}: {ran.seconds:.1f} CPU s, exit {ran.code}")
    assert ran.code == 1, ran.stderr
    assert ran.seconds < CPU_SECONDS, f"{ran.seconds:.1f} CPU seconds"
    grouped = verdicts(ran.report)
    assert len(grouped.get("deviates", [])) > 20
    assert ran.report["run"]["interrupted"] is None
    examples = [r["counterexample"] for r in grouped["deviates"] if r["counterexample"]]
    assert examples and all(isinstance(c["minimized"], bool) for c in examples)
    assert ran.left == []
