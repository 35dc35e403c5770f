"""Ending a server ends whatever it left holding its pipes: a grandchild that left the process group
(`setsid`, a daemonizing double fork) is found by the pipes it holds and killed, by both drivers that end
processes (a run left 15 such daemons running, issue 45)."""

from __future__ import annotations

import re
import time

from conformance.drivers.sdk import SdkDriver
from conformance.drivers.wire import WireDriver
from conformance.suite.rawproc import RawServer
from conformance.targets.specs import resolve_target
from tests.servers import GONE_WITHIN, OVERRUN, alive, assert_gone, command, wait_for_stderr


def _gone_within(pid: int, seconds: float) -> bool:
    """Whether `pid` stops running within `seconds` (polled: a SIGKILLed process takes a moment to go; callers
    pass `GONE_WITHIN`, since a 2 s bound is a guess a loaded machine can miss and a grandchild left behind
    stays for ever, so the long deadline still catches it)."""
    deadline = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def _grandchild(stderr: bytes) -> int:
    found = re.search(rb"grandchild (\d+)", stderr)
    assert found, stderr
    return int(found.group(1))


def test_the_wire_driver_ends_a_daemonized_grandchild_holding_stdout() -> None:
    with WireDriver(command("daemon_child"), timeout=10) as driver:
        driver.initialize()
        grandchild = _grandchild(wait_for_stderr(driver, b"grandchild "))
        pid = driver.pid
        assert alive(grandchild)
    assert _gone_within(grandchild, GONE_WITHIN), f"the daemonized grandchild {grandchild} is still running"
    assert_gone(pid)


def test_a_raw_process_ends_its_daemonized_grandchild_too() -> None:
    target = resolve_target("cmd:" + " ".join(command("daemon_child")))
    with RawServer(target, sandbox={}) as raw:
        raw.initialize()
        grandchild = _grandchild(raw.stderr_now(wait=OVERRUN))
        pid = raw.proc.pid
    assert _gone_within(grandchild, GONE_WITHIN), f"the daemonized grandchild {grandchild} is still running"
    assert_gone(pid)


def test_the_sdk_driver_ends_a_daemonized_grandchild_holding_stderr() -> None:
    with SdkDriver(command("daemon_child"), timeout=10) as driver:
        grandchild = _grandchild(wait_for_stderr(driver, b"grandchild "))
        assert alive(grandchild)
    assert _gone_within(grandchild, GONE_WITHIN), f"the daemonized grandchild {grandchild} is still running"
