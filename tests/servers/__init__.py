"""Small stdio servers that misbehave in one way each, and helpers the driver tests share."""

from __future__ import annotations

import functools
import os
import shlex
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import psutil

from conformance.drivers.transcript import Transcript
from conformance.suite.session import ServerSession
from conformance.targets.specs import Target, resolve_target

HERE = Path(__file__).parent
ROOT = HERE.parents[1]


def command(name: str, *args: str) -> list[str]:
    """The command line that runs test server `name` (a file in this folder)."""
    return [sys.executable, str(HERE / f"{name}.py"), *args]


def fork_target(mode: str) -> Target:
    """The reference changed in one way: `reference_fork.py`'s `mode`, as a `cmd:` target."""
    return resolve_target("cmd:" + shlex.join(command("reference_fork", mode)))


@contextmanager
def session_on(target: Target, timeout: float = 60.0) -> Iterator[ServerSession]:
    """A suite session on `target` with no transcript kept, as a check receives it; closed after, however the
    block ends, so no test leaves its processes behind."""
    session = ServerSession(target=target, transcript=Transcript(None), timeout=timeout)
    try:
        yield session
    finally:
        session.close()


@contextmanager
def fork_session(mode: str, timeout: float = 60.0) -> Iterator[ServerSession]:
    """`session_on` the reference fork in `mode`."""
    with session_on(fork_target(mode), timeout) as session:
        yield session


def suite_outcomes(suite_file: str, tests: list[str], target: str, tmp: Path, *options: str
                   ) -> dict[str, tuple[str, str]]:
    """The named checks of one conformance suite file run against `target` (with suite `options`, such as
    `--call-timeout 3`) in a pytest of their own: each one's outcome and failure message."""
    junit = tmp / "junit.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", f"conformance/suite/{suite_file}", "-q", "-p", "no:cacheprovider",
         "-k", " or ".join(tests), f"--basetemp={tmp / 'pytest'}", f"--junitxml={junit}", "--target", target,
         *options],
        cwd=ROOT, capture_output=True, timeout=600, check=False)
    seen: dict[str, tuple[str, str]] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        outcome = "failed" if failure is not None else (
            "skipped" if case.find("skipped") is not None else "passed")
        message = failure.get("message", "") if failure is not None else ""
        seen[case.get("name", "").split("[")[0]] = (outcome, message)
    return seen


@functools.cache
def ts062() -> Target:
    """The TypeScript original 0.6.2, installed into the default cache (once per machine)."""
    return resolve_target("npm:0.6.2", progress=lambda line: print(line, file=sys.stderr))


VALID = {"thought": "first", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}
"""A call every sequentialthinking server accepts."""


def alive(pid: int) -> bool:
    """Whether `pid` is a running process (a zombie nobody reaps is not running)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def group_alive(pgid: int) -> list[int]:
    """Running processes in process group `pgid`, found independently of the code under test."""
    found = []
    for proc in psutil.process_iter(["pid", "status"]):
        try:
            if proc.info["status"] != psutil.STATUS_ZOMBIE and os.getpgid(proc.pid) == pgid:
                found.append(proc.pid)
        except (ProcessLookupError, psutil.Error):
            continue
    return found


GONE_WITHIN: float = 30.0
"""How long a process the harness killed may take to be gone: SIGKILL is delivered, not awaited, and on a
loaded machine the kernel takes a moment (issue 43: `assert [3551] == []` right after a kill). Polled, so it
costs only what the exit takes; a process left behind stays, so a long deadline catches it as well."""
PATIENT: float = 300.0
"""A timeout no test means to reach: "reported when it happens, not at the timeout" is checked as under
`PATIENT / 2`, which a machine ten times slower still meets and a report made at the timeout does not."""
OVERRUN: float = 30.0
"""How far past a timeout or grace it set a test lets a loaded machine go before calling the limit not
honoured (a limit not honoured waits for the default or for ever, far longer)."""


def assert_gone(*pids: int) -> None:
    """No process of the server's group (nor the given pids) is left running, within `GONE_WITHIN`: a bounded
    deadline, polled, never a fixed sleep; one still running then was left behind."""
    deadline = time.monotonic() + GONE_WITHIN
    for pid in pids:
        while (alive(pid) or group_alive(pid)) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not alive(pid), f"process {pid} is still running"
        assert group_alive(pid) == [], f"process group {pid} still has running members"


def running_with(argument: str) -> list[int]:
    """Running processes whose command line contains `argument` (for servers whose pid we never saw)."""
    found = []
    for proc in psutil.process_iter(["pid", "status", "cmdline"]):
        cmdline = proc.info["cmdline"] or ()
        if proc.info["status"] != psutil.STATUS_ZOMBIE and any(argument in part for part in cmdline):
            found.append(proc.pid)
    return found


TAG_VARIABLE = "SEQTHINK_TEST_TAG"
"""Set in a CLI run's environment; every server it starts inherits it, so a test finds them by it alone."""


def tagged(tag: str) -> list[int]:
    """Running processes whose environment carries `TAG_VARIABLE=tag` (servers we never saw the pid of)."""
    found = []
    for proc in psutil.process_iter(["pid", "status"]):
        try:
            if proc.info["status"] != psutil.STATUS_ZOMBIE and proc.environ().get(TAG_VARIABLE) == tag:
                found.append(proc.pid)
        except (psutil.Error, OSError):
            continue
    return found


def tagged_after_gone(tag: str) -> list[int]:
    """Processes still carrying `tag` once `GONE_WITHIN` passed, polled: a run killed its servers' groups on
    the way out, and on a loaded machine a SIGKILLed process takes a moment to go (issue 43's `[3551] == []`).
    Returns as soon as none is left; one left for `GONE_WITHIN` was left behind."""
    deadline = time.monotonic() + GONE_WITHIN
    while (left := tagged(tag)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


class _WritesStderr(Protocol):
    def stderr_bytes(self) -> bytes: ...


def wait_for_stderr(driver: _WritesStderr, needle: bytes, within: float = OVERRUN) -> bytes:
    """The server's stderr once `needle` is in it: a driver reads stderr on a thread of its own, so what a
    server wrote just before its answer may reach the buffer just after it. Polled up to `OVERRUN`: a
    server's start on a loaded machine may take seconds, and the wait ends as soon as the needle is there."""
    deadline = time.monotonic() + within
    while needle not in driver.stderr_bytes():
        assert time.monotonic() < deadline, f"{needle!r} never appeared on stderr"
        time.sleep(0.02)
    return driver.stderr_bytes()
