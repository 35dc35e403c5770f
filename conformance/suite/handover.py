"""The preflight's process handed to the suite's shared session, so a run starts one process fewer.

The command line starts the target once before the suite (the preflight) and gives `pytest.main` a
`Handover` among its plugins; the `server` fixture finds it in the config's stash and its session takes the
process for its target. Whatever no session took (an xdist run, a run stopped early) the runner closes.
"""

from __future__ import annotations

from types import TracebackType

import pytest

from conformance.core.jsontypes import JSON
from conformance.drivers.lateness import Lateness
from conformance.drivers.wire import WireDriver
from conformance.suite.rawproc import target_key
from conformance.targets.specs import Target

_KEY = pytest.StashKey["Handover"]()


class Handover:
    """Initialized processes offered to the suite, one per target command and environment, and what the run
    learned about its commands' late stderr."""

    def __init__(self) -> None:
        self._offered: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], WireDriver] = {}
        self._answered: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], dict[str, JSON]] = {}
        self.lateness = Lateness()
        """The run's: its targets carry it (`Target.lateness`), so the preflight, the suite and the
        witnesses' replays after it learn together, and the next run in this process starts afresh."""

    def offer(self, target: Target, driver: WireDriver) -> None:
        """Hand over an initialized process for `target` (replacing, and closing, one offered before)."""
        driver.transcript = None
        if driver.initialize_result is not None:
            self._answered[target_key(target)] = driver.initialize_result
        previous = self._offered.pop(target_key(target), None)
        if previous is not None:
            previous.close()
        self._offered[target_key(target)] = driver

    def take(self, target: Target) -> WireDriver | None:
        """The offered process for `target`, if there is one still alive and initialized."""
        driver = self._offered.pop(target_key(target), None)
        if driver is not None and (not driver.is_alive() or driver.initialize_result is None):
            driver.close()
            return None
        return driver

    def initialize_answer(self, target: Target) -> dict[str, JSON] | None:
        """The initialize result of the process offered for `target`, taken or not: what a check reading only
        the capabilities a process of the command declares needs, without starting one."""
        return self._answered.get(target_key(target))

    def close(self) -> None:
        """Close every offered process no session took."""
        while self._offered:
            self._offered.popitem()[1].close()

    def __enter__(self) -> Handover:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[_KEY] = self


def handover_of(config: pytest.Config) -> Handover | None:
    """The handover given to this pytest run, None when pytest was started some other way."""
    return config.stash.get(_KEY, None)
