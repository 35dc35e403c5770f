"""Where a `run`'s fixed cost goes before its first check, and after its last: one run in this process,
timed at the seams.

    python -m benchmarks.run_start [-- run --target npm:0.6.2 --profile dev --seed 1 --out DIR]

Marks, in seconds since this process's interpreter started: the command line imported; the runner (pytest,
hypothesis, the gate) imported; `pytest.main` entered (the preflight has started the target); pytest
configured (its plugins, the suite's plugin); collection done (the suite's modules imported, their asserts
rewritten unless .pyc files are kept); the first test started; the last test finished; the run returned
(results merged, gate, report written). Run it with and without PYTHONDONTWRITEBYTECODE=1 (after one
warm-up start that writes the .pyc files) to see what compiling and rewriting costs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import Final

import psutil

DEFAULT: Final = ("run", "--target", "npm:0.6.2", "--profile", "dev", "--seed", "1", "--out",
                  "reports/run-start")


class Seams:
    """A pytest plugin noting when configuration, collection and the tests begin and end."""

    def __init__(self, marks: dict[str, float], since: float) -> None:
        self.marks = marks
        self.since = since

    def _mark(self, name: str) -> None:
        self.marks.setdefault(name, time.time() - self.since)

    def pytest_configure(self) -> None:
        self._mark("pytest configured")

    def pytest_collection_finish(self) -> None:
        self._mark("collection done")

    def pytest_runtest_logstart(self) -> None:
        self._mark("first test started")

    def pytest_sessionfinish(self) -> None:
        self._mark("last test finished")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run_start",
                                     description=(__doc__ or "").strip().split("\n")[0])
    parser.add_argument("command", nargs="*", default=list(DEFAULT), help="the command line to time")
    args = parser.parse_args(argv)
    since = psutil.Process().create_time()
    marks: dict[str, float] = {"benchmark started": time.time() - since}
    from conformance.cli import main as cli

    marks["command line imported"] = time.time() - since
    import pytest

    import conformance.cli.runner

    marks["runner imported"] = time.time() - since
    seams = Seams(marks, since)
    plain = pytest.main

    def timed(args: list[str], plugins: Sequence[object] = ()) -> int | pytest.ExitCode:
        seams._mark("pytest.main entered")
        return plain(args, plugins=[*plugins, seams])

    pytest.main = timed  # type: ignore[assignment]  # a measurement, never the harness itself
    assert conformance.cli.runner.run is not None
    with open(os.devnull, "w", encoding="utf-8") as quiet:
        code = cli.main(list(args.command), stdout=quiet)
    marks["run returned"] = time.time() - since
    pytest.main = plain
    bytecode = "off" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "on"
    print(f"exit {code}; .pyc files {bytecode}; load average {os.getloadavg()[0]:.1f}")
    previous = 0.0
    for name, at in sorted(marks.items(), key=lambda item: item[1]):
        print(f"{at:8.2f} s  (+{at - previous:6.2f})  {name}")
        previous = at
    return 0


if __name__ == "__main__":
    sys.exit(main())
