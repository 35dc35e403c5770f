"""Sequential round trips per second: the wire driver against a bare blocking write/readline loop.

The suite runs thousands of calls against one process, so the wire driver's own overhead must stay
small: target, at least 80% of the bare loop's rate on the same calls against npm:0.6.2. The SDK
driver (a realistic host) is measured too, for scale.

The baseline is the cheapest possible client: `stdin.write` + `stdout.readline` on blocking pipes,
with the server's stderr sent to /dev/null, so the server never blocks and nobody reads it. A second
bare loop keeps stderr the simplest way (a pipe drained by a thread) to show what capturing stderr
costs at all; the wire driver reads, keeps and attributes every stderr byte and checks every frame.

A shared machine is noisy, so short batches of the loops alternate (rotating which goes first), and
the verdict is the median of per-repetition ratios: each ratio compares batches run back to back,
under the same load. The load average is printed with the figures.

Run: `python -m benchmarks.bench_drivers [--target npm:0.6.2] [--json out.json] [--check]`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

from benchmarks.rounds import rotated
from conformance.core.jsontypes import JSON
from conformance.drivers import process
from conformance.drivers.sdk import SdkDriver
from conformance.drivers.wire import WireDriver
from conformance.targets.specs import Target, resolve_target

TARGET_RATIO = 0.80
BARE = "bare, stderr to /dev/null"
BARE_PIPE = "bare, stderr drained"
WIRE = "wire driver"
SDK = "sdk driver"
ARGUMENTS: Final[dict[str, JSON]] = {
    "thought": "benchmark", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": True
}
INITIALIZE: Final[dict[str, JSON]] = {
    "protocolVersion": "2024-11-05",
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "0"},
}


@dataclass(frozen=True)
class Rates:
    driver: str
    calls_per_repetition: int
    repetitions: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.repetitions)


INITIALIZE_SECONDS: Final = 60.0
"""How long a bare loop waits for the initialize answer before it stops the server and says so."""


class ServerDidNotStart(RuntimeError):
    """The server under a bare loop exited or never answered initialize."""


class BareLoop:
    """One blocking write and one blocking readline per call, nothing else."""

    def __init__(
        self, target: Target, *, drain_stderr: bool, initialize_seconds: float = INITIALIZE_SECONDS
    ) -> None:
        self.proc = subprocess.Popen(
            target.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if drain_stderr else subprocess.DEVNULL,
            env=process.merged_env(target.env),
            start_new_session=True,
        )
        if drain_stderr:
            threading.Thread(target=self._drain, daemon=True).start()
        self.next_id = 0
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            self.close()

        watchdog = threading.Timer(initialize_seconds, expire)
        watchdog.start()
        try:
            self.request("initialize", INITIALIZE)
            self.write({"jsonrpc": "2.0", "method": "notifications/initialized"})
        except (ValueError, OSError) as error:
            self.close()
            late = f" within {initialize_seconds:g} s" if expired.is_set() else ""
            raise ServerDidNotStart(f"{target.spec}: no answer to initialize{late} ({error})") from error
        except BaseException:
            self.close()
            raise
        finally:
            watchdog.cancel()

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        fd = self.proc.stderr.fileno()
        with contextlib.suppress(OSError):
            while os.read(fd, 1 << 16):
                pass

    def write(self, message: dict[str, JSON]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, JSON]) -> dict[str, JSON]:
        assert self.proc.stdout is not None
        self.next_id += 1
        self.write({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        answer: dict[str, JSON] = json.loads(self.proc.stdout.readline())
        return answer

    def call(self) -> None:
        self.request("tools/call", {"name": "sequentialthinking", "arguments": ARGUMENTS})

    def close(self) -> None:
        process.terminate(self.proc)


def batch_rate(call: Callable[[], object], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return calls / (time.perf_counter() - started)


def interleaved(
    contenders: list[tuple[str, Callable[[], object]]], calls: int, repetitions: int, warmup: int
) -> list[Rates]:
    for _, call in contenders:
        batch_rate(call, warmup)
    rates: dict[str, list[float]] = {name: [] for name, _ in contenders}
    for repetition in range(repetitions):
        for name, call in rotated(contenders, repetition):
            rates[name].append(batch_rate(call, calls))
    return [Rates(name, calls, values) for name, values in rates.items()]


def measure(target: Target, calls: int, repetitions: int, sdk_calls: int, warmup: int) -> list[Rates]:
    bare = BareLoop(target, drain_stderr=False)
    bare_pipe = BareLoop(target, drain_stderr=True)
    wire = WireDriver(target.command, env=target.env, timeout=30)
    try:
        wire.start()
        wire.initialize()
        results = interleaved(
            [
                (BARE, bare.call),
                (BARE_PIPE, bare_pipe.call),
                (WIRE, lambda: wire.call_tool("sequentialthinking", ARGUMENTS)),
            ],
            calls,
            repetitions,
            warmup,
        )
    finally:
        wire.close()
        bare.close()
        bare_pipe.close()
    with SdkDriver(target.command, env=target.env, timeout=30) as sdk:
        results += interleaved(
            [(SDK, lambda: sdk.call_tool("sequentialthinking", ARGUMENTS))],
            sdk_calls,
            max(3, repetitions // 4),
            min(warmup, sdk_calls),
        )
    return results


def paired_ratio(numerator: Rates, denominator: Rates) -> tuple[float, list[float]]:
    ratios = [a / b for a, b in zip(numerator.repetitions, denominator.repetitions, strict=True)]
    return statistics.median(ratios), ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--target", default="npm:0.6.2")
    parser.add_argument("--calls", type=int, default=100, help="calls per batch (bare and wire)")
    parser.add_argument("--sdk-calls", type=int, default=100, help="calls per batch (sdk)")
    parser.add_argument("--repetitions", type=int, default=41)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--json", type=Path, help="also write the figures as JSON to this path")
    parser.add_argument("--check", action="store_true", help=f"exit 1 when wire/bare < {TARGET_RATIO:.0%}")
    args = parser.parse_args(argv)

    target = resolve_target(args.target, progress=lambda line: print(line, file=sys.stderr))
    load_before = os.getloadavg()[0]
    results = measure(target, args.calls, args.repetitions, args.sdk_calls, args.warmup)
    load_after = os.getloadavg()[0]
    by_name = {r.driver: r for r in results}
    ratio, ratios = paired_ratio(by_name[WIRE], by_name[BARE])
    ratio_pipe, _ = paired_ratio(by_name[WIRE], by_name[BARE_PIPE])

    identity = target.identity
    print(
        f"target {target.spec} ({identity.package_name}@{identity.package_version},"
        f" node {identity.node_version}); python {platform.python_version()}, {os.cpu_count()} cpus,"
        f" load average {load_before:.2f} -> {load_after:.2f}"
    )
    header = ("client", "calls/batch", "batches", "median rt/s", "min", "max", "us/call")
    print(
        f"{header[0]:<28}"
        + "".join(f"{h:>{w}}" for h, w in zip(header[1:], (12, 8, 13, 8, 8, 9), strict=True))
    )
    for r in results:
        print(
            f"{r.driver:<28}{r.calls_per_repetition:>12}{len(r.repetitions):>8}{r.median:>13.0f}"
            f"{min(r.repetitions):>8.0f}{max(r.repetitions):>8.0f}{1e6 / r.median:>9.1f}"
        )
    quartiles = statistics.quantiles(ratios, n=4)
    verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
    print(
        f"wire / bare = {ratio:.2f} (median of paired batches,"
        f" quartiles {quartiles[0]:.2f}-{quartiles[2]:.2f}): {verdict} the {TARGET_RATIO:.0%} target"
    )
    print(f"wire / bare with stderr drained = {ratio_pipe:.2f}")
    print(f"server processes started by drivers: {process.processes_started()} (plus 2 bare loops)")

    if args.json is not None:
        report = {
            "target": identity.model_dump(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_average": [load_before, load_after],
            "results": [{**asdict(r), "median": r.median} for r in results],
            "wire_over_bare": ratio,
            "wire_over_bare_per_batch": ratios,
            "wire_over_bare_stderr_drained": ratio_pipe,
            "target_ratio": TARGET_RATIO,
            "processes_started": process.processes_started(),
        }
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 1 if args.check and ratio < TARGET_RATIO else 0


if __name__ == "__main__":
    sys.exit(main())
