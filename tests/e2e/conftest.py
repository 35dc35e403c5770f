"""Runs that several end-to-end tests check, each made once per session and handed to every test that
checks it. A test whose scenario is its own (another target, baseline, signal, deadline) makes its own run;
a module whose runs are independent of each other makes them ahead, two at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.cli import GATE_SEED, GATE_SUITE, CountedRun, Ran, cli, fake

REFERENCE_SEED = "20261201"
PROBE = '''"""First on the PYTHONPATH of one run: each of its Python processes imports this at start, and
those running the reference server append their pid to the run's log: the servers count their starts."""

import os
import sys

if sys.orig_argv[1:3] == ["-m", "reference_server"]:
    with open({log!r}, "a", encoding="utf-8") as starts:
        starts.write(f"{{os.getpid()}}\\n")
'''
"""A sitecustomize module, written per run: PYTHONPATH reaches every server, even those started with an
exact environment (the colour rows keep PYTHONPATH), where a variable of our own would not."""


@pytest.fixture(scope="session")
def reference_ci(tmp_path_factory: pytest.TempPathFactory) -> CountedRun:
    """`run --target reference --profile ci`, as CI runs it: its gate and report (test_cli.py) and the server
    processes it started (test_processes.py)."""
    folder = tmp_path_factory.mktemp("reference-ci")
    probe, log = folder / "probe", folder / "starts.log"
    probe.mkdir()
    (probe / "sitecustomize.py").write_text(PROBE.format(log=str(log)), encoding="utf-8")
    ran = cli("run", "--target", "reference", "--profile", "ci", "--seed", REFERENCE_SEED, out=folder / "out",
              timeout=600, env={"PYTHONPATH": str(probe)})
    starts = log.read_text(encoding="utf-8").split() if log.is_file() else []
    return CountedRun(ran, "ci", REFERENCE_SEED, starts)


@pytest.fixture(scope="session")
def hostile_gate(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """The stand-in gate suite against the fake server whose every string is `<script>alert(1)</script>`:
    the gate, escaping, baselines, parallel workers and diff (test_cli.py) and its page in a browser
    (test_browser.py)."""
    out = tmp_path_factory.mktemp("hostile-gate") / "out"
    return cli("run", "--target", fake("hostile"), "--profile", "dev", "--seed", GATE_SEED,
               "--suite", GATE_SUITE, out=out)


@pytest.fixture(scope="session")
def ahead() -> Iterator[ThreadPoolExecutor]:
    """Two runs at a time, for modules whose runs do not depend on each other: a run spends much of its wall
    time waiting on a server, a timeout or a budget, so a second one fills the other core. Runs still queued
    when the session ends are dropped."""
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="e2e-run")
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
