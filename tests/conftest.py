"""Harness tests that interrupt a child with SIGINT need it to reach Python's KeyboardInterrupt."""

from __future__ import annotations

import signal


def pytest_configure() -> None:
    """A launcher that started the test run in the background (`nohup cmd &` in a shell without job control)
    leaves SIGINT ignored, and every child inherits that: the Ctrl-C tests would then wait for an interrupt
    that never arrives. Restoring Python's handler here gives children the default disposition again."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
