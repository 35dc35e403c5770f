"""A process one check is done with serves the next check that needs one instead of a new start (issue 46):
a colour row's process ends a process's check (`RawPool.donate`), a used raw process becomes the session's
spare (`RawPool.hand_over`, `WireDriver.adopt`) or the era meeting's process (`EraMeetings.source`), the spare
and the shared process go back to the pool for a check that ends them (`WireDriver.release`,
`RawPool.take_back`), and the fresh runs' processes are asked tools/list before
initialize and what they say unasked (`FreshRunner`). Starts are counted by `process.spawn` itself."""

from __future__ import annotations

import json
import signal
import sys
import time
from dataclasses import replace

from conformance.core.eras import AUTO
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers import process
from conformance.drivers.transcript import Transcript
from conformance.suite.era_meetings import EraMeetings
from conformance.suite.fresh_runs import FreshRunner
from conformance.suite.plugin import run_order
from conformance.suite.rawproc import RawPool
from conformance.suite.session import ServerSession
from conformance.targets.specs import Target, resolve_target
from tests.servers import HERE, OVERRUN, alive, assert_gone, command


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
            assert ending.wait(OVERRUN) == -signal.SIGTERM
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
        row.proc.wait(OVERRUN)
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


def test_the_spare_goes_back_to_the_pool_for_a_check_ending_a_process() -> None:
    """Released once its checks ran, the spare's process is what the next `spend` lend gets: the same process
    (its count goes on), with what was read of its stderr, ended by the check; no process is started."""
    pool = RawPool()
    target = _target()
    session = ServerSession(target=target, transcript=Transcript(None))
    session.spare_source = lambda: pool.hand_over(target)
    try:
        with pool.lend(target) as raw:
            raw.initialize()
            assert _count(raw.request("tools/call", {"name": TOOL, "arguments": CALL})) == 1
            pid = raw.proc.pid
        started = process.processes_started()
        with session.spare() as driver:
            assert _count(driver.call_tool(TOOL, CALL).response) == 2
        released = session.release_spare()
        assert released is not None, "a running spare was not released"
        proc, said, initialized = released
        assert proc.pid == pid and initialized is not None
        assert session.release_spare() is None, "the spare was released twice"
        pool.take_back(target, proc, seen=said, initialized=initialized)
        with pool.lend(target) as other:
            assert other.proc.pid != pid, "a process taken back for ending was lent to a check keeping it"
        with pool.lend(target, spend=True) as ending:
            assert ending.proc.pid == pid, "a spend lend did not take the spare given back"
            assert ending.initialize() == initialized  # not sent again
            assert _count(ending.request("tools/call", {"name": TOOL, "arguments": CALL})) == 3
            ending.signal(signal.SIGTERM)
            assert ending.wait(OVERRUN) == -signal.SIGTERM
        assert process.processes_started() == started + 1  # the one the lend that keeps its process started
    finally:
        session.close()
        pool.close()
    assert_gone(pid)


def test_a_dead_spare_is_not_released() -> None:
    session = ServerSession(target=_target(), transcript=Transcript(None))
    try:
        with session.spare() as driver:
            pid = driver.pid
        process.kill_group_now(pid)
        assert session.release_spare() is None
    finally:
        session.close()


def test_the_fresh_runs_read_tools_list_before_initialize_on_their_own_processes() -> None:
    """Three processes in all: the first says nothing unasked on stdout, and each is asked tools/list before
    and after initialize, then the same sequence (the same answers on both whose stderr is read)."""
    pool = RawPool()
    target = resolve_target("cmd:" + " ".join(command("initialize_first", "--serves-early")))
    try:
        started = process.processes_started()
        runs = FreshRunner(pool).of(target)
        assert process.processes_started() == started + 3
        assert runs.unasked.stderr == b"Sequential Thinking MCP Server running on stdio\n"
        assert runs.opening_failed is None and runs.unasked.stdout is None
        for run in (*runs.read, runs.discarded):
            assert run.listed_before is not None and run.listed_after is not None
            assert run.listed_before["result"] == run.listed_after["result"]
        assert runs.read[0].answers == runs.read[1].answers
        assert _count(runs.read[0].answers[0]) == 1, "the sequence's first call was not the process's first"
    finally:
        pool.close()


def test_a_server_refusing_requests_before_initialize_gets_the_fresh_runs_without_the_opening() -> None:
    """tools/list before initialize answered with no answer to it: what it raised is kept for RTE-1's check,
    that process is closed, and the sequence runs on processes sent nothing before initialize."""
    pool = RawPool()
    target = resolve_target("cmd:" + " ".join(command("initialize_first")))
    try:
        started = process.processes_started()
        runs = FreshRunner(pool).of(target)
        assert process.processes_started() == started + 4
        assert runs.opening_failed is not None
        assert all(run.listed_before is None for run in (*runs.read, runs.discarded))
        assert runs.read[0].answers == runs.read[1].answers == runs.discarded.answers
        assert _count(runs.read[0].answers[0]) == 1
    finally:
        pool.close()


def _used(pool: RawPool, target: Target) -> int:
    """A process of `target` waiting in the pool, initialized and called once; its pid."""
    with pool.lend(target) as raw:
        raw.initialize()
        raw.request("tools/call", {"name": TOOL, "arguments": CALL})
        return raw.proc.pid


def test_the_era_meeting_takes_a_used_raw_process() -> None:
    """The meeting's client connects to a process the raw checks are done with (its handshake a repeated one):
    no process is started, the store goes on from where that process stood, and the meeting ends it."""
    pool = RawPool()
    target = _target()
    try:
        pid = _used(pool, target)
        started = process.processes_started()
        meeting = EraMeetings(10.0, source=pool.hand_over).of(target, AUTO)
        assert process.processes_started() == started, "the meeting started a process with a used one idle"
        assert meeting.failure is None, meeting.failure
        assert meeting.negotiated == "2025-11-25", meeting.negotiated
        assert _count(meeting.calls[0][1]) == 2, "the meeting's first call was answered by another process"
        assert meeting.end_of_input == 0
        assert pool.hand_over(target) is None, "the process the meeting took is still in the pool"
    finally:
        pool.close()
    assert_gone(pid)


def test_a_meeting_refused_a_repeated_handshake_is_made_on_a_new_process() -> None:
    """A server refusing a second initialize is met as before: on a process of its own, first handshake."""
    pool = RawPool()
    target = resolve_target("cmd:" + " ".join(command("initialize_once")))
    try:
        pid = _used(pool, target)
        started = process.processes_started()
        meeting = EraMeetings(10.0, source=pool.hand_over).of(target, AUTO)
        assert process.processes_started() == started + 1
        assert meeting.failure is None, meeting.failure
        assert meeting.negotiated == "2025-11-25", meeting.negotiated
        assert meeting.initialize is not None and meeting.initialize.get("serverInfo") == {"name": "once",
                                                                                           "version": "0"}
    finally:
        pool.close()
    assert_gone(pid)


def test_the_shared_process_goes_to_the_pool_for_a_check_ending_a_process() -> None:
    """Released once the checks that keep it ran, the shared process is what a `spend` lend gets (its count
    goes on, its initialize answer kept); a later use of the session starts a new one, not counted as a
    restart."""
    pool = RawPool()
    target = _target()
    session = ServerSession(target=target, transcript=Transcript(None))
    try:
        assert _count(session.call(CALL).response) == 1
        pid = session.wire.pid
        released = session.release_shared()
        assert released is not None, "a running shared process was not released"
        assert session.release_shared() is None, "the shared process was released twice"
        proc, said, initialized = released
        assert proc.pid == pid and initialized is not None
        pool.take_back(target, proc, seen=said, initialized=initialized)
        started = process.processes_started()
        with pool.lend(target, spend=True) as ending:
            assert ending.proc.pid == pid, "a spend lend did not take the shared process given back"
            assert ending.initialize() == initialized  # not sent again
            assert _count(ending.request("tools/call", {"name": TOOL, "arguments": CALL})) == 2
            ending.signal(signal.SIGTERM)
            assert ending.wait(OVERRUN) == -signal.SIGTERM
        assert process.processes_started() == started
        assert _count(session.call(CALL).response) == 1 and session.wire.pid != pid
        assert session.restarts == 0
    finally:
        session.close()
        pool.close()
    assert_gone(pid)


def test_a_launch_started_with_the_session_is_what_its_check_lends() -> None:
    """A process of the target launched with arguments, started ahead (`launches`, `RawPool.prestart`), is the
    one the check's `spend` lend gets: no process is started then."""
    pool = RawPool()
    target = resolve_target("cmd:" + " ".join(command("mini")))  # takes no options, as the original
    launch = replace(target, command=(*target.command, "--version", "--help"))
    try:
        pool.prestart(launch, pristine=1)
        started = process.processes_started()
        with pool.lend(target) as other:
            plain = other.proc.pid
        with pool.lend(launch, spend=True) as raw:
            assert raw.proc.pid != plain and not raw.sent
            assert process.processes_started() == started + 1  # the plain lend's only
            raw.close_stdin()
            assert raw.wait(OVERRUN) == 0
    finally:
        pool.close()


def test_a_launch_that_ended_while_waiting_is_launched_again() -> None:
    """A launch started ahead that ended before its check is not lent: the check launches it again."""
    pool = RawPool()
    target = resolve_target("cmd:" + " ".join(command("exit_at_start")))
    try:
        pool.prestart(target, pristine=1)
        deadline = time.monotonic() + OVERRUN
        while not pool.ended_waiting(target) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pool.ended_waiting(target), "the launch started ahead did not end"
        started = process.processes_started()
        with pool.lend(target, spend=True) as raw:
            assert raw.wait(OVERRUN) is not None
        assert process.processes_started() == started + 1
    finally:
        pool.close()


def test_a_process_started_with_an_exact_environment_keeps_the_target_s_own() -> None:
    """The caption-colour rows start processes with exactly their environment; agiprolabs-ts' were started
    without the DATA_PATH its target spec gives and wrote their store into the harness's working folder."""
    said = ("import os, sys; sys.stderr.write(os.environ.get('MARK', '-') + '\\n'); sys.stderr.flush(); "
            "sys.stdin.read()")
    target = resolve_target(f"MARK=kept cmd:{sys.executable} -c \"{said}\"")
    pool = RawPool()
    try:
        row = pool.start_exact(target, {"PATH": "/usr/bin:/bin"})
        try:
            assert row.stderr_now(wait=OVERRUN).strip() == b"kept"
        finally:
            row.close()
    finally:
        pool.close()
