"""A process one check is done with serves the next check that needs one instead of a new start (issue 46):
a colour row's process ends a process's check (`RawPool.donate`), and a used raw process becomes the
session's spare (`RawPool.hand_over`, `WireDriver.adopt`). Starts are counted by `process.spawn` itself."""

from __future__ import annotations

import json
import signal

from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers import process
from conformance.drivers.transcript import Transcript
from conformance.suite.plugin import run_order
from conformance.suite.rawproc import RawPool
from conformance.suite.session import ServerSession
from conformance.targets.specs import Target, resolve_target
from tests.servers import HERE, alive, assert_gone, command


def _target() -> Target:
    return resolve_target("cmd:" + " ".join(command("counting")))


CALL: dict[str, JSON] = {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}


def _count(answer: dict[str, JSON]) -> int:
    """thoughtHistoryLength of an accepted answer: which call of its process it was."""
    result = answer["result"]
    assert isinstance(result, dict)
    content = result["content"]
    assert isinstance(content, list) and isinstance(content[0], dict)
    text = content[0]["text"]
    assert isinstance(text, str)
    return int(json.loads(text)["thoughtHistoryLength"])


def test_a_check_ending_a_process_takes_a_donated_one_before_starting_one() -> None:
    """A process started with an environment of its own and donated is what the next `spend` lend gets;
    a lend that does not end its process never gets it (its environment is not the target's)."""
    pool = RawPool()
    target = _target()
    try:
        row = pool.start_exact(target, {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(HERE), "FORCE_COLOR": "0"})
        row.initialized_as(row.request("initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                                                      "clientInfo": {"name": "t", "version": "1"}}))
        pool.donate(row)
        started = process.processes_started()
        with pool.lend(target) as other:
            assert other.proc.pid != row.proc.pid
        assert process.processes_started() == started + 1
        with pool.lend(target, spend=True) as ending:
            assert ending.proc.pid == row.proc.pid, "a spend lend started a process with a donated one idle"
            ending.initialize()  # already done by the row's own frames: not sent again
            ending.signal(signal.SIGTERM)
            assert ending.wait(5.0) == -signal.SIGTERM
        assert process.processes_started() == started + 1
    finally:
        pool.close()


def test_a_donated_process_that_ended_is_not_lent() -> None:
    pool = RawPool()
    target = _target()
    try:
        row = pool.start_exact(target, {"PATH": "/usr/bin:/bin"})
        pool.donate(row)
        row.proc.kill()
        row.proc.wait(5.0)
        with pool.lend(target, spend=True) as ending:
            assert ending.proc.pid != row.proc.pid
    finally:
        pool.close()


def test_the_spare_takes_over_a_used_raw_process() -> None:
    """The spare's first use takes a used, initialized raw process of the pool (not a pristine one, which a
    fresh run may still need), and its calls continue that process's count: the same process, no new one."""
    pool = RawPool()
    target = _target()
    session = ServerSession(target=target, transcript=Transcript(None))
    session.spare_source = lambda: pool.hand_over(target)
    try:
        pool.prestart(target, pristine=1)
        assert pool.hand_over(target) is None, "a pristine process was handed over"
        with pool.lend(target) as raw:
            raw.initialize()
            assert _count(raw.request("tools/call", {"name": TOOL, "arguments": CALL})) == 1
            pid = raw.proc.pid
        started = process.processes_started()
        with session.spare() as driver:
            assert driver.pid == pid
            assert driver.initialize_result is not None
            assert _count(driver.call_tool(TOOL, CALL).response) == 2
        assert process.processes_started() == started
        assert alive(pid)
        with pool.lend(target, spend=True) as raw:
            assert raw.proc.pid != pid, "a process handed over was lent again"
    finally:
        session.close()
        pool.close()
    assert_gone(pid)


def test_the_checks_ending_a_process_run_last() -> None:
    """`ends_a_process` after `after_the_rest`, after everything else; `before_the_breaker` first."""

    class Item:
        def __init__(self, name: str, *markers: str) -> None:
            self.name, self.markers = name, markers

        def get_closest_marker(self, name: str) -> object | None:
            return name if name in self.markers else None

    items = [Item("ends", "ends_a_process"), Item("rest", "after_the_rest"), Item("plain"),
             Item("first", "before_the_breaker")]
    items.sort(key=run_order)  # type: ignore[arg-type]
    assert [item.name for item in items] == ["first", "plain", "rest", "ends"]
