"""The SDK driver (the official mcp client session over stdio) against misbehaving servers (0.6.2 through a
realistic host is in tests/e2e/test_sdk_driver_original.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import psutil
import pytest
from mcp_types import TextContent

from conformance.drivers import process
from conformance.drivers.errors import ProtocolViolation, ServerExited, ServerTimeout, TargetError
from conformance.drivers.sdk import SdkDriver
from conformance.drivers.sdk_stdio import STOP_GRACE
from conformance.drivers.stray_lag import SHORT_GRACE, STRAY_GRACE, StrayLag
from tests.servers import GONE_WITHIN, OVERRUN, PATIENT, VALID, alive, command, group_alive, running_with


def tagged(name: str, *args: str) -> tuple[list[str], str]:
    """A test server command carrying a unique tag, to find its processes even when the SDK hides the pid."""
    tag = f"--tag={uuid.uuid4().hex}"
    return command(name, *args, tag), tag


def assert_gone(tag: str, *pids: int | None) -> None:
    """Nothing tagged `tag` (nor the given pids) still runs, within a bounded deadline (`GONE_WITHIN`): a
    SIGKILLed group takes a moment to go on a loaded machine."""
    deadline = time.monotonic() + GONE_WITHIN
    while (running_with(tag) or any(pid is not None and (alive(pid) or group_alive(pid)) for pid in pids)) \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    assert running_with(tag) == [], f"a process tagged {tag} is left behind"
    for pid in pids:
        if pid is not None:
            assert not alive(pid)
            assert group_alive(pid) == []


@pytest.mark.parametrize("name", ["exit_at_start", "late_last_word"])
def test_server_that_exits_at_start_fails_the_handshake(name: str) -> None:
    """Its last word is in the failure: read to stderr's end, even when it comes after the exit was seen
    (`late_last_word`); once cut to "" under load because the driver still held the pipe's write end."""
    started = time.monotonic()
    server, tag = tagged(name)
    driver = SdkDriver(server, timeout=PATIENT)
    with pytest.raises(ServerExited) as failure, driver:
        pass
    assert time.monotonic() - started < PATIENT / 2, "reported at the exit, not at the timeout"
    assert "cannot start, giving up" in failure.value.stderr_tail
    assert_gone(tag, driver.pid)


def test_server_that_crashes_on_first_call() -> None:
    server, tag = tagged("crash_on_call")
    with SdkDriver(server, timeout=60) as driver:
        assert driver.pid is not None and alive(driver.pid)
        with pytest.raises(ServerExited) as failure:
            driver.call_tool("sequentialthinking", VALID)
        assert "segfault-ish" in failure.value.stderr_tail
        assert not driver.is_alive()
    assert_gone(tag, driver.pid)


def test_server_that_never_answers_times_out_and_its_stubborn_group_is_killed() -> None:
    started = time.monotonic()
    server, tag = tagged("never_answers", "--stubborn", "--child")
    driver = SdkDriver(server, timeout=0.5)
    with pytest.raises(ServerTimeout) as failure, driver:
        pass
    assert failure.value.method == "initialize"
    # The SDK's own shutdown: stdin closed, 2 s, SIGTERM (ignored here), 2 s, SIGKILL.
    assert time.monotonic() - started < 0.5 + 2 * STOP_GRACE + OVERRUN
    child = int(driver.stderr_bytes().split()[1])
    assert_gone(tag, driver.pid, child)


@pytest.mark.parametrize("flag", [(), ("--json",)])
def test_stdout_line_that_is_not_jsonrpc_is_a_protocol_violation_at_once(flag: tuple[str, ...]) -> None:
    server, tag = tagged("not_json", *flag)
    with SdkDriver(server, timeout=PATIENT) as driver:
        started = time.monotonic()
        with pytest.raises(ProtocolViolation):
            driver.call_tool("sequentialthinking", VALID)
        assert time.monotonic() - started < PATIENT / 2, "reported when the line arrives, not at the timeout"
    assert_gone(tag, driver.pid)


def test_stray_stdout_lines_are_read_past_to_each_answer() -> None:
    """A log line before each answer (fork-digest's "[digest] …"): the SDK's own client reads on past it, and
    so does the driver (issue 46): each call gets its answer and each line is counted."""
    server, tag = tagged("not_json", "--then-answer")
    with SdkDriver(server, timeout=PATIENT) as driver:
        answers = [driver.call_tool("sequentialthinking", VALID) for _ in range(3)]
        assert driver.strays_seen == 3
    assert [(a.is_error, [c.text for c in a.content if isinstance(c, TextContent)]) for a in answers] == [
        (False, ["ok"])] * 3
    assert_gone(tag, driver.pid)


def _thought(text: str) -> dict[str, object]:
    return {**VALID, "thought": text}


def test_the_grace_a_stray_line_gets_is_the_learned_one() -> None:
    """Once a command's stray line went unanswered, the official client's driver waits the short grace too:
    an answer 1 s after its stray line (the whole grace would read it) is given up on."""
    server, tag = tagged("not_json", "--by-thought")
    strays = StrayLag()
    strays.note_unanswered(server, STRAY_GRACE)
    assert strays.grace(server) == SHORT_GRACE
    with SdkDriver(server, timeout=PATIENT, strays=strays) as driver, pytest.raises(ProtocolViolation):
        driver.call_tool("sequentialthinking", _thought("late 1.0"))
    assert_gone(tag, driver.pid)


def test_an_answer_after_a_stray_line_teaches_its_lag_and_garbage_its_expiry() -> None:
    """The official client's driver learns as the wire driver does: an answer half a second after a stray
    line teaches that lag, a stray line left unanswered the expiry, and a later process of the command still
    reads an answer that comes by the lag learned (a grace cut to 0.25 s whatever was learned would not)."""
    server, tag = tagged("not_json", "--by-thought")
    strays = StrayLag()
    with SdkDriver(server, timeout=PATIENT, strays=strays) as first:
        assert not first.call_tool("sequentialthinking", _thought("late 0.5")).is_error
        assert strays.lag(server) > 0 and not strays.unanswered(server)
        with pytest.raises(ProtocolViolation):
            first.call_tool("sequentialthinking", _thought("garbage"))
    assert strays.unanswered(server) and strays.grace(server) > SHORT_GRACE
    with SdkDriver(server, timeout=PATIENT, strays=strays) as later:
        answer = later.call_tool("sequentialthinking", _thought("late 0.5"))
        assert (answer.is_error, later.strays_seen) == (False, 1)
    assert_gone(tag, first.pid, later.pid)


def test_a_call_failed_by_stray_lines_names_the_first_as_the_wire_driver_does() -> None:
    """Two stray lines and no answer: the failure names the first line, as the wire driver's does (the SDK
    driver once kept the last, so the same server's stop read differently under the two drivers)."""
    server, tag = tagged("not_json", "--two-lines")
    with SdkDriver(server, timeout=PATIENT) as driver:
        with pytest.raises(ProtocolViolation) as failure:
            driver.call_tool("sequentialthinking", VALID)
        assert driver.strays_seen == 2
    assert "first stray line" in str(failure.value)
    assert "second stray line" not in str(failure.value)
    assert_gone(tag, driver.pid)


def test_wrong_id_is_ignored_by_the_sdk_and_ends_in_a_timeout() -> None:
    """Only the call is timed short: a 0.5 s timeout on the whole driver also timed the server's start and
    handshake, which a slow machine (`scripts/jitter --slow 10`) did not fit in it."""
    server, tag = tagged("wrong_id")
    with SdkDriver(server, timeout=PATIENT) as driver:
        started = time.monotonic()
        with pytest.raises(ServerTimeout) as failure:
            driver.call_tool("sequentialthinking", VALID, timeout=0.5)
        assert time.monotonic() - started < PATIENT / 2, "the call's own timeout, not the driver's"
        assert failure.value.method == "tools/call"
    assert_gone(tag, driver.pid)


def test_stderr_flood_is_captured_not_printed(capfd: pytest.CaptureFixture[str]) -> None:
    server, tag = tagged("stderr_flood", "--mb", "4")
    with SdkDriver(server, timeout=120) as driver:
        result = driver.call_tool("sequentialthinking", VALID)
        assert result.content[0].type == "text"
    assert len(driver.stderr_bytes()) == (5 << 20) + len(b"stderr_flood: starting\n")
    assert "xxxx" not in capfd.readouterr().err
    assert_gone(tag, driver.pid)


def test_ctrl_c_during_the_handshake_leaves_no_server_behind(tmp_path: Path) -> None:
    server, tag = tagged("never_answers", "--stubborn", "--child")
    script = tmp_path / "interrupted.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(Path(__file__).parents[2])!r})
            print("go", flush=True)
            from conformance.drivers.sdk import SdkDriver
            with SdkDriver({server!r}, timeout={PATIENT!r}):
                pass
            """
        )
    )
    harness = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert harness.stdout is not None
        harness.stdout.readline()
        # Bounded, not timed: under two busy loops beside a full CI run the start took over 20 s once.
        deadline = time.monotonic() + 90
        while not (servers := running_with(tag)) or not psutil.Process(servers[0]).children():
            assert harness.poll() is None, "the harness ended before its server came up"
            assert time.monotonic() < deadline, "the server and its child never came up in 90 s"
            time.sleep(0.05)
        child = psutil.Process(servers[0]).children()[0].pid
        harness.send_signal(signal.SIGINT)
        _, stderr = harness.communicate(timeout=2 * STOP_GRACE + OVERRUN)  # far under the script's timeout
        assert b"KeyboardInterrupt" in stderr
    finally:
        if harness.poll() is None:
            harness.kill()
            harness.wait()
    assert_gone(tag, servers[0], child)


def test_unstartable_command_is_a_target_error() -> None:
    with pytest.raises(TargetError, match="cannot start"), SdkDriver(["/nonexistent/server"]):
        pass


def test_sdk_driver_counts_its_process() -> None:
    before = process.processes_started()
    with SdkDriver(command("mini")) as driver:
        assert driver.pid is not None
    assert process.processes_started() == before + 1
