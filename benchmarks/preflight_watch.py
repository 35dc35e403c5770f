"""What the preflight's watch on stdout costs, and what it catches (docs/robustness.md quotes it).

    python -m benchmarks.preflight_watch [--repeat 5] [--targets npm:0.6.2 reference]

For each target, `check_target` alone (no suite, no overlapping imports) is timed `--repeat` times with the
watch (`QUIET_AFTER_START`, `QUIET_AFTER_ANSWER`) and with both set to 0: the difference is the watch's price
on a process that has just started; in a `run` the preflight overlaps the suite's imports, so the process
has lived past `QUIET_AFTER_START` and only `QUIET_AFTER_ANSWER` is paid. Then the logger of
tests/servers/ports.py (a JSON line on stdout 200 ms after the handshake) is started both ways: caught with
the watch, missed without.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

from conformance.cli.runner.preflight import (
    QUIET_AFTER_ANSWER,
    QUIET_AFTER_HANDSHAKE,
    QUIET_AFTER_START,
    check_target,
)
from conformance.core.identity import TargetIdentity
from conformance.targets.specs import Target, resolve_target

PORTS: Final = Path(__file__).resolve().parent.parent / "tests" / "servers" / "ports.py"


def timed(target: Target) -> tuple[float, bool, str | None]:
    with tempfile.TemporaryDirectory() as folder:
        start = time.monotonic()
        checked, _, _ = check_target(target, Path(folder) / "preflight.jsonl", 10)
        return time.monotonic() - start, checked.ok, checked.error


WATCH: Final = (QUIET_AFTER_START, QUIET_AFTER_ANSWER, QUIET_AFTER_HANDSHAKE)
_MODULE: Final = importlib.import_module("conformance.cli.runner.preflight")
"""The module itself (`conformance.cli.runner.preflight` the attribute is the function of that name)."""


def watching(on: bool) -> None:
    """The watch as shipped, or off: the module's constants, read by `_quiet` at each call."""
    setattr(_MODULE, "QUIET_AFTER_START", WATCH[0] if on else 0.0)  # noqa: B010 (Final in its module)
    setattr(_MODULE, "QUIET_AFTER_ANSWER", WATCH[1] if on else 0.0)  # noqa: B010
    setattr(_MODULE, "QUIET_AFTER_HANDSHAKE", WATCH[2] if on else 0.0)  # noqa: B010


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--targets", nargs="+", default=["npm:0.6.2", "reference"])
    args = parser.parse_args()
    print(f"watch: {WATCH[0]:g} s after start, {WATCH[1]:g} s after the call's answer")
    print("| target | preflight without the watch (median s) | with it | extra |")
    print("| --- | ---: | ---: | ---: |")
    for spec in args.targets:
        target = resolve_target(spec)
        medians = []
        for on in (False, True):
            watching(on)
            medians.append(statistics.median(timed(target)[0] for _ in range(args.repeat)))
        print(f"| {spec} | {medians[0]:.2f} | {medians[1]:.2f} | {medians[1] - medians[0]:+.2f} |")
    command = (sys.executable, str(PORTS), "logger")
    spec = f"cmd:{' '.join(command)}"
    logger = Target(spec, command, TargetIdentity(spec=spec, kind="cmd", command=list(command)))
    for on in (False, True):
        watching(on)
        _, ok, error = timed(logger)
        said = "missed (preflight passed)" if ok else f"caught: {(error or '')[:160]}"
        print(f"logger 200 ms after the handshake, watch {'on' if on else 'off'}: {said}")
    watching(True)


if __name__ == "__main__":
    main()
