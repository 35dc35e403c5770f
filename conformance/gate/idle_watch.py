"""The idle witness: a fresh process held idle after one call, and what it does on a clock, not per call.

Output a server writes on a timer (a heartbeat, a reminder, an idle timeout) depends on how long a process sat
idle, which the suite's search does not decide: ABS-10's idle check saw a 2.5 s heartbeat only when pooled
processes happened to idle that long, and a 1 s heartbeat's lines fell into whichever pinned stderr its beat
met (issue 43). A fresh process held idle a fixed while, the same on every run and both sides, observes it
once: what it did first is ABS-10's `idle` witness step, and every stderr line it wrote while idle is a clock
line, kept out of every other pinned stderr (`without_clock_lines`), so a call's own stderr (its box) is still
compared whole.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Final

from conformance.core.idle import IDLE_HOLD
from conformance.core.jsontypes import JSON
from conformance.core.protocol import PROBE_ARGUMENTS, PROTOCOL_VERSION, TOOL
from conformance.drivers.errors import DriverError, ServerExited, ServerTimeout
from conformance.drivers.transcript import Transcript, decode
from conformance.drivers.wire import WireDriver
from conformance.gate.canonical import without_volatile
from conformance.targets.specs import Target

IDLE_WITNESS: Final = IDLE_HOLD
"""How long the idle witness's process is held idle after its call when what it does there is observed
(ABS-10's `idle` step): fixed, never the search's own waits, so each side answers the same on every run."""
IDLE_LEAST: Final = 2.5
"""How long the process is held idle at least when only its clock lines are learned (another record's
pinned stderr): past a 1 or 2 s heartbeat's period; the watch runs beside the witness calls, so it costs
only what it outlasts them by."""
STARTUP_WAIT: Final = 1.0
"""The wait for the banner before the idle witness's call (the same as the witness session's)."""
_POLL: Final = 0.05
END_WAIT: Final = 2.0
"""How long an ended process is waited for to be reaped before its status is read."""
IDLE_STEP: Final = "idle"
"""The witness step observing it (fixtures/witnesses/witnesses.yaml, ABS-10's)."""
QUIET: Final[dict[str, JSON]] = {"idle": "quiet"}
"""The idle step's answer for a process that did nothing while held idle (the original's)."""


class IdleWatch:
    """A fresh process of `target`, initialized, sent the probe call, then held idle in a thread of its own:
    its first event (a stderr line, a message on stdout, its end) and every stderr line it wrote while idle.
    `observe`: the idle step is asked, so `answer` waits for an event or `hold`; else `clock_lines` waits
    `least` at most from the start of the hold."""

    def __init__(self, target: Target, timeout: float, transcript: Transcript | None, *, observe: bool,
                 hold: float = IDLE_WITNESS, least: float = IDLE_LEAST) -> None:
        self.target, self.timeout, self.transcript = target, timeout, transcript
        self.observe, self.hold, self.least = observe, hold, least
        self._first: JSON | None = None
        self._lines: dict[str, None] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="idle-witness", daemon=True)
        self._thread.start()

    def answer(self) -> JSON:
        """The idle step's answer: what the process did first while held idle, or `QUIET`."""
        self._finish()
        return self._first if self._first is not None else dict(QUIET)

    def clock_lines(self) -> frozenset[str]:
        """Every stderr line (stripped, its volatile tokens as placeholders) the process wrote while idle."""
        self._finish()
        return frozenset(self._lines)

    def _finish(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        driver: WireDriver | None = None
        try:
            driver = self.target.wire(timeout=self.timeout, transcript=self.transcript)
            driver.start()
            driver.initialize(PROTOCOL_VERSION)
            driver.stderr_settled(STARTUP_WAIT)
            driver.call_tool(TOOL, dict(PROBE_ARGUMENTS))
            # The call's own stderr read to its end first: a box a relay forwards late is no idle line.
            driver.stderr_settled(STARTUP_WAIT)
            self._watch(driver)
        except Exception as exc:  # a failure in the thread is its answer, never "quiet" by default
            if self._first is None:
                self._first = {"idle": "not observed", "failure": type(exc).__name__}
        finally:
            if driver is not None:
                driver.close()

    def _watch(self, driver: WireDriver) -> None:
        mark = driver.stderr_mark()
        started = time.monotonic()
        taken = 0

        def read_stderr() -> None:
            # Before an end is taken as the first event: a line written just before it came first.
            nonlocal taken
            written = driver.stderr_since(mark)
            whole = written[: written.rfind(b"\n") + 1]
            for text in decode(whole[taken:]).split("\n"):
                self._learn(text)
            taken = len(whole)

        while True:
            waited = time.monotonic() - started
            if waited >= self.hold or (self._stop.is_set() and waited >= self.least
                                       and (not self.observe or self._first is not None)):
                return
            try:
                line = driver.read_frame(timeout=_POLL)
            except ServerTimeout:
                line = None
            except ServerExited:
                read_stderr()
                self._event({"idle": "ended", "exit": _status(driver)})
                return
            if line is not None:
                try:
                    message = driver.read_parsed(line)
                    method: JSON = message.get("method", "a response")
                except DriverError:
                    method = "not JSON-RPC"
                self._event({"idle": "sent", "method": method})
            read_stderr()
            if not driver.is_alive():
                read_stderr()
                self._event({"idle": "ended", "exit": _status(driver)})
                return

    def _learn(self, text: str) -> None:
        line = text.strip()
        if not line:
            return
        self._event({"idle": "wrote", "stderr": line})
        self._lines.setdefault(clock_key(line), None)

    def _event(self, what: JSON) -> None:
        if self._first is None:
            self._first = what


def _status(driver: WireDriver) -> JSON:
    """An ended process's exit status, once reaped (`END_WAIT` at most): none read before it is."""
    until = time.monotonic() + END_WAIT
    while driver.returncode is None and time.monotonic() < until:
        time.sleep(_POLL)
    return driver.returncode


def clock_key(line: str) -> str:
    """A stderr line as the clock lines are compared: stripped, its time, dates and ids placeholders."""
    key = without_volatile(line.strip())
    return key if isinstance(key, str) else line.strip()


def without_clock_lines(stderr: str, clock: Iterable[str]) -> str:
    """`stderr` without the lines written while a process of the same target sat idle (`clock`): a heartbeat
    is no call's own output. Every other line, a box's included, is kept as written."""
    known = frozenset(clock)
    if not known:
        return stderr
    kept = [line for line in stderr.split("\n") if not line.strip() or clock_key(line) not in known]
    return "\n".join(kept)
