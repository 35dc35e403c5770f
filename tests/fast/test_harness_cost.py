"""What every command pays before and after its work, counted rather than timed: the collector's passes
while the command line starts, and the /proc scans an ended server's group costs (`benchmarks/harness_cost.py`
prints both beside a run's CPU)."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from conformance.core import collector
from conformance.drivers import process
from conformance.suite import workers
from tests.cli import REPO

COUNT_COLLECTIONS = """
import atexit, gc, json, runpy, sys
atexit.register(lambda: print(json.dumps([s["collections"] for s in gc.get_stats()]), file=sys.stderr))
sys.argv = ["conformance", "run", "--list"]
runpy.run_module("conformance", run_name="__main__", alter_sys=True)
"""
"""`python -m conformance run --list` as the console script starts it (the runner imported, the catalog
read), saying at exit how many collections each generation had."""


def test_the_command_line_starts_with_few_collections() -> None:
    """At Python's default threshold, `run --list` took about two hundred collections, one of them full;
    `collect_less_often`, called before anything heavy is imported, leaves a few dozen and no full one."""
    done = subprocess.run([sys.executable, "-c", COUNT_COLLECTIONS], cwd=REPO, capture_output=True, text=True,
                          timeout=120, check=True)
    young, middle, full = json.loads(done.stderr.strip().splitlines()[-1])
    assert full == 0, f"{full} full collections while the command line started ({young}, {middle}, {full})"
    assert young < 80, f"{young} collections of the youngest generation while the command line started"


def test_the_test_processes_collect_less_often() -> None:
    """tests/conftest.py sets the collector before collecting (this process is one of them)."""
    assert gc.get_threshold()[0] >= collector.FIRST_THRESHOLD, gc.get_threshold()


@pytest.fixture
def thresholds() -> Iterator[None]:
    saved = gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*saved)


@pytest.mark.usefixtures("thresholds")
@pytest.mark.parametrize(("before", "after"), [
    ((700, 10, 10), (collector.FIRST_THRESHOLD, 10, 10)),
    ((50_000, 5, 5), (50_000, 5, 5)),
    ((0, 10, 10), (0, 10, 10)),
])
def test_the_threshold_is_only_raised(before: tuple[int, int, int], after: tuple[int, int, int]) -> None:
    """A caller that chose a higher threshold, or disabled collection (0), keeps its choice."""
    gc.set_threshold(*before)
    collector.collect_less_often()
    assert gc.get_threshold() == after


@pytest.mark.usefixtures("thresholds")
def test_a_run_s_xdist_worker_collects_less_often(tmp_path: Path) -> None:
    """`run --jobs N`'s workers start through xdist, not `conformance/__main__.py`: the workers' plugin sets
    the collector before they collect the suite."""
    gc.set_threshold(700, 10, 10)
    config = SimpleNamespace(workerinput={"workerid": "gw0"}, option=SimpleNamespace(),
                             getoption=lambda name, default=None: str(tmp_path))
    workers.pytest_configure(config)  # type: ignore[arg-type]  # the attributes the hook reads
    assert gc.get_threshold() == (collector.FIRST_THRESHOLD, 10, 10)
    assert config.option.conformance_results_dir == str(tmp_path / "worker-gw0")


def test_an_ended_group_is_not_looked_for_in_proc(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a server's group has ended (the usual case when an ending waits on it), the kernel says so in one
    call; a scan of /proc (every process's stat on the machine) is made only for a group that still exists."""
    ended = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    ended.wait(timeout=60)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    listed: list[str] = []
    listdir = os.listdir

    def counted(path: str | os.PathLike[str]) -> list[str]:
        listed.append(os.fspath(path))
        return listdir(path)

    monkeypatch.setattr(os, "listdir", counted)
    try:
        assert process.group_members(ended.pid) == []
        assert listed == [], f"an ended group was looked for in {listed}"
        assert process.group_members(live.pid) == [live.pid]
        assert listed == ["/proc"]
    finally:
        live.kill()
        live.wait(timeout=60)


def test_the_benchmark_counts_a_command(tmp_path: Path) -> None:
    """`benchmarks/harness_cost.py` on a command that starts no server: its figures are the child's (CPU
    counted, no group looked for), and the imports a run makes before its suite take no full collection."""
    figures = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, "-m", "benchmarks.harness_cost", "--json", str(figures), "--",
                           "records", "--kind", "rte"], cwd=REPO, capture_output=True, text=True, timeout=180,
                          check=True)
    assert "cyclic collector" in done.stdout
    found = json.loads(figures.read_text(encoding="utf-8"))
    assert found["exit"] == 0
    assert found["harness_cpu"] > 0
    assert (found["groups_waited"], found["proc_scans"]) == (0, 0)
    assert found["imports"]["collections"][2] == 0, found["imports"]
