"""The preflight's `meanwhile`: the run's own work that overlaps the target's start-up (`import_ahead`, the
SDK's client for the built-in suite). It runs once the target's process exists and before it is asked to
initialize, and a `meanwhile` that fails leaves no process behind."""

from __future__ import annotations

import contextlib
import os
import shlex
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import psutil
import pytest

from conformance.cli.runner.preflight import check_target
from conformance.cli.runner.suite import import_ahead
from conformance.drivers.wire import WireDriver
from conformance.gate.run_options import RunOptions
from conformance.targets.specs import resolve_target
from tests.servers import OVERRUN, PATIENT, command


def _children() -> list[psutil.Process]:
    return psutil.Process(os.getpid()).children(recursive=True)


def test_meanwhile_runs_between_the_targets_start_and_its_initialize(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = resolve_target("cmd:" + shlex.join(command("mini")))
    order: list[str] = []
    running: list[str] = []
    initialize = WireDriver.initialize

    def initialize_in_order(driver: WireDriver, *args: Any, **kwargs: Any) -> Any:
        order.append("initialize")
        return initialize(driver, *args, **kwargs)

    def meanwhile() -> None:
        order.append("meanwhile")
        # A child may still be passing through the signal-resetting trampoline's exec (a job started with
        # `&` ignores SIGINT): its command line is read again until it names the server, within a deadline.
        deadline = time.monotonic() + OVERRUN
        while not any("mini.py" in line for line in running) and time.monotonic() < deadline:
            running.clear()
            for child in _children():
                with contextlib.suppress(psutil.Error):
                    running.append(" ".join(child.cmdline()))
            time.sleep(0.01)

    monkeypatch.setattr(WireDriver, "initialize", initialize_in_order)
    checked, _, _ = check_target(target, tmp_path / "preflight.jsonl", PATIENT, meanwhile=meanwhile)
    assert checked.ok
    assert order == ["meanwhile", "initialize"]
    assert any("mini.py" in line for line in running)


def test_a_meanwhile_that_fails_ends_the_targets_process(tmp_path: Path) -> None:
    target = resolve_target("cmd:" + shlex.join(command("mini")))
    before = {p.pid for p in _children()}

    def meanwhile() -> None:
        raise RuntimeError("stopped while importing")

    with pytest.raises(RuntimeError, match="stopped while importing"):
        check_target(target, tmp_path / "preflight.jsonl", PATIENT, meanwhile=meanwhile)
    assert [p for p in _children() if p.pid not in before and p.is_running()
            and p.status() != psutil.STATUS_ZOMBIE] == []


def test_only_a_run_that_collects_the_built_in_suite_here_imports_ahead() -> None:
    built_in = RunOptions(target="reference", profile="dev", seed=1, out=Path("out"))
    assert import_ahead(built_in) is not None
    assert import_ahead(replace(built_in, suite="tests.cli_suite.gate_suite")) is None
    assert import_ahead(replace(built_in, jobs=2)) is None


def test_a_module_that_cannot_be_imported_ahead_is_left_to_the_collection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The suite's collection reports a missing module in the run's report: the preflight does not raise."""
    monkeypatch.setattr("conformance.cli.runner.suite.SUITE_IMPORTS", ("conformance.no_such_module",))
    load = import_ahead(RunOptions(target="reference", profile="dev", seed=1, out=Path("out")))
    assert load is not None
    load()
