"""Where a stop signal lands: in ordinary code it raises `Cancelled` at once; inside a garbage-collector
callback or a finaliser, where Python would print the raise as "Exception ignored in" and drop it, the stop is
recorded and the next `check()` raises it. Each test sends itself a real SIGINT."""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.drivers import cancel


@pytest.fixture
def unraisable(monkeypatch: pytest.MonkeyPatch) -> list[BaseException | None]:
    """What Python would have printed as "Exception ignored in" during the test."""
    seen: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda args: seen.append(args.exc_value))
    return seen


@pytest.fixture
def gc_callback_signalling() -> Iterator[None]:
    """A gc callback that sends SIGINT to this process on the next collection's start, as a Ctrl-C landing
    while hypothesis' own gc callback runs would."""
    sent = []

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and not sent:
            sent.append(phase)
            os.kill(os.getpid(), signal.SIGINT)

    gc.callbacks.append(callback)
    try:
        yield
    finally:
        gc.callbacks.remove(callback)
        cancel.reset()


def test_a_signal_in_ordinary_code_raises_at_once() -> None:
    try:
        with cancel.handling(), pytest.raises(cancel.Cancelled, match="cancelled by SIGINT"):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):
                pass
    finally:
        cancel.reset()


@pytest.mark.usefixtures("gc_callback_signalling")
def test_a_signal_in_a_gc_callback_is_raised_by_the_next_check(
    unraisable: list[BaseException | None],
) -> None:
    with cancel.handling():
        gc.collect()
        assert unraisable == []
        stop = cancel.requested()
        assert stop is not None and stop.reason == "cancelled by SIGINT"
        with pytest.raises(cancel.Cancelled, match="cancelled by SIGINT"):
            cancel.check()


def test_a_signal_in_a_finaliser_is_raised_by_the_next_check(unraisable: list[BaseException | None]) -> None:
    class SignalsWhenFreed:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):
                pass

    try:
        with cancel.handling():
            doomed = SignalsWhenFreed()
            del doomed
            assert unraisable == []
            with pytest.raises(cancel.Cancelled, match="cancelled by SIGINT"):
                cancel.check()
    finally:
        cancel.reset()
