"""Cancelling a run: SIGTERM, SIGINT or a deadline stops it at once, and nothing is judged from the stop.

The signal handler raises `Cancelled`, a KeyboardInterrupt: hypothesis and pytest let a KeyboardInterrupt
through (they treat SystemExit as a test failure, which is how a cancelled run used to record false
deviations). The flag stays set, so a driver refuses the next call and the plugin the next test even if some
code swallowed the first raise; the handler raises only once, so cleanup after it is never interrupted.
"""

from __future__ import annotations

import gc
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from types import FrameType
from typing import Final

from conformance.drivers import process

DEADLINE_EXIT: Final = 124
"""Exit status of a run stopped by `--max-time` (as coreutils `timeout` uses)."""
HELD_AT_MOST: Final = 5.0
"""Seconds `deferred()` holds a stop: a set-up reads bounded regular files and ends sooner; one that does
not (a system call that waits) is stopped then, without a report."""


@dataclass(frozen=True)
class Stop:
    """Why a run stopped early: `kind` is "cancelled" or "deadline"; `exit_code` is what the CLI returns."""

    kind: str
    reason: str
    exit_code: int


class Cancelled(KeyboardInterrupt):
    """The run was cancelled or hit its deadline; not an outcome of the target."""

    def __init__(self, stop: Stop) -> None:
        super().__init__(stop.reason)
        self.stop = stop


_lock = threading.Lock()
_stop: Stop | None = None
_raised = False
_deferring = False
_collecting = False
"""Whether the garbage collector is running: a weakref callback or finaliser it calls cannot raise either."""
_held_since: float | None = None


def requested() -> Stop | None:
    """The stop requested so far, if any."""
    return _stop


def request(stop: Stop) -> None:
    """Ask the run to stop (the first request wins)."""
    global _stop
    with _lock:
        if _stop is None:
            _stop = stop


def check() -> None:
    """Raise `Cancelled` when a stop was requested: called before every request and every test."""
    global _raised
    if _stop is not None:
        with _lock:
            _raised = True
        raise Cancelled(_stop)


@contextmanager
def deferred() -> Iterator[None]:
    """A stop that arrives inside the block is recorded, not raised: the block (a run's set-up, before it can
    write a report) finishes, and the next `check()` raises it. A block still running `HELD_AT_MOST` seconds
    after the stop is interrupted then (the signal delivered again, so a waiting system call returns)."""
    global _deferring, _held_since
    _deferring = True
    try:
        yield
    finally:
        _deferring = False
        _held_since = None


def reset() -> None:
    """Forget a stop (a new run in the same interpreter, e.g. the CLI's tests)."""
    global _stop, _raised, _deferring, _held_since
    with _lock:
        _stop = None
        _raised = False
        _deferring = False
        _held_since = None


def _unraisable_context(frame: FrameType | None) -> bool:
    """Whether the interrupted code is a garbage-collector callback or a finaliser: Python cannot propagate
    an exception from there (it prints it as "Exception ignored in" and goes on), so the stop is left to the
    next `check()`, which comes before the next request or test."""
    if _collecting:
        return True
    callbacks = {getattr(callback, "__code__", None) for callback in gc.callbacks}
    while frame is not None:
        if frame.f_code in callbacks or frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _track_collection(phase: str, info: dict[str, int]) -> None:
    global _collecting
    _collecting = phase == "start"


def _stop_now(stop: Stop, frame: FrameType | None, signum: int) -> None:
    global _raised
    request(stop)
    if _deferring and _hold(signum):
        return
    if _unraisable_context(frame):
        return
    with _lock:
        first = not _raised
        _raised = True
    if first:
        raise Cancelled(stop)


def _hold(signum: int) -> bool:
    """Whether a stop arriving in a `deferred()` block is held: yes until it has been held `HELD_AT_MOST`
    seconds; a reminder then delivers the signal again to the main thread, which the block cannot ignore."""
    global _held_since
    now = time.monotonic()
    if _held_since is None:
        _held_since = now
        main = threading.main_thread().ident
        held = _held_since

        def remind() -> None:
            if _deferring and _held_since == held and main is not None:
                signal.pthread_kill(main, signum)

        reminder = threading.Timer(HELD_AT_MOST, remind)
        reminder.daemon = True
        reminder.start()
        return True
    return now - _held_since < HELD_AT_MOST


def _on_signal(signum: int, frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    _stop_now(Stop("cancelled", f"cancelled by {name}", 128 + signum), frame, signum)


@contextmanager
def handling(max_time: float | None = None) -> Iterator[None]:
    """SIGTERM and SIGINT (unless SIGINT is ignored, as in a background job) and an optional deadline raise
    `Cancelled` in the main thread for the duration; the previous handlers come back afterwards."""
    reset()
    saved: dict[signal.Signals, signal._HANDLER] = {}
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers: a run started elsewhere is stopped by its caller
        return
    gc.callbacks.append(_track_collection)
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(sig)
        if sig == signal.SIGINT and process.ignores(previous):
            continue
        saved[sig] = previous
        signal.signal(sig, _on_signal)
    if max_time is not None:
        alarm = signal.getsignal(signal.SIGALRM)
        saved[signal.SIGALRM] = alarm

        def on_alarm(signum: int, frame: FrameType | None) -> None:
            _stop_now(Stop("deadline", f"deadline: --max-time {max_time:g} s reached", DEADLINE_EXIT), frame,
                      signum)

        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, max(max_time, 0.001))
    try:
        yield
    finally:
        with suppress(ValueError):
            gc.callbacks.remove(_track_collection)
        if max_time is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, previous in saved.items():
            signal.signal(sig, signal.SIG_DFL if previous is None else previous)
