"""Tiers by cost, and children that can be interrupted.

Everything under tests/e2e/ and the conformance suite is marked `slow`, here and never by hand, so
`python -m pytest -m "not slow"` is the fast tier: tests/fast/ alone.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

import conformance.suite

SLOW = (Path(__file__).resolve().parent / "e2e", Path(conformance.suite.__file__).resolve().parent)
"""Full runs, CLI runs, the action, the browser, installs, node, the suite against real servers."""


def pytest_configure() -> None:
    """A launcher that started the test run in the background (`nohup cmd &` in a shell without job control)
    leaves SIGINT ignored, and every child inherits that: the Ctrl-C tests would then wait for an interrupt
    that never arrives. Restoring Python's handler here gives children the default disposition again."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Before `-m` deselects: the mark comes from where a test lives."""
    for item in items:
        if any(item.path.resolve().is_relative_to(folder) for folder in SLOW):
            item.add_marker(pytest.mark.slow)
