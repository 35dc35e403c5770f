"""How long a server takes to answer when its client works between calls, not only in a tight loop.

The floor (`benchmarks/floor.py`) replays a run's calls back to back, as fast as the server answers. A run
does not send them that way: between two calls the harness generates, checks and records (about a
millisecond of CPU per call), and a server whose processor went idle in that gap answers later than one
kept busy by a tight loop (the idle processor's wake-up, cold caches). This measures the same bare client
(`bench_drivers.BareLoop`: one blocking write and one blocking readline per call, stderr drained) with a
given amount of busy work before each call, and times only each call's write-to-answer:

    python -m benchmarks.think_time [--target npm:0.6.2] [--think-ms 0,0.2,0.5,1,2] [--calls 150]

Batches of each think time alternate (rotating which goes first), and each row is the median over the
repetitions, so load moves every row alike.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.bench_drivers import BareLoop, ServerDidNotStart
from benchmarks.rounds import rotated
from conformance.targets.specs import resolve_target


@dataclass(frozen=True)
class Row:
    think_ms: float
    round_trip_us: float
    """The median over repetitions of each batch's mean write-to-answer time."""
    lowest_us: float
    highest_us: float


def busy(seconds: float) -> None:
    """Keep this thread's processor busy for `seconds`, as the harness's own work between calls does."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def batch(loop: BareLoop, calls: int, think_s: float) -> float:
    """Mean seconds from a call's write to its answer, `think_s` of busy work before each call."""
    waited = 0.0
    for _ in range(calls):
        busy(think_s)
        began = time.perf_counter()
        loop.call()
        waited += time.perf_counter() - began
    return waited / calls


def measure(loop: BareLoop, think_ms: Sequence[float], calls: int, repetitions: int) -> list[Row]:
    for _ in range(calls):
        loop.call()
    found: dict[float, list[float]] = {think: [] for think in think_ms}
    for repetition in range(repetitions):
        for think in rotated(think_ms, repetition):
            found[think].append(batch(loop, calls, think / 1000))
    return [Row(think, statistics.median(means) * 1e6, min(means) * 1e6, max(means) * 1e6)
            for think, means in found.items()]


def render(spec: str, rows: Sequence[Row]) -> str:
    lines = [f"{spec}: write-to-answer time of one small call, by the client's busy work before each call",
             "| think time | round trip (median) | lowest batch | highest batch |",
             "|---:|---:|---:|---:|"]
    lines += [f"| {row.think_ms:g} ms | {row.round_trip_us:.0f} us | {row.lowest_us:.0f} us"
              f" | {row.highest_us:.0f} us |" for row in rows]
    if rows and rows[0].round_trip_us > 0:
        slowest = max(row.round_trip_us for row in rows)
        lines.append(f"slowest row / first row: {slowest / rows[0].round_trip_us:.2f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.think_time", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="npm:0.6.2")
    parser.add_argument("--think-ms", default="0,0.2,0.5,1,2", help="comma-separated busy work per call")
    parser.add_argument("--calls", type=int, default=150, help="calls per batch")
    parser.add_argument("--repetitions", type=int, default=8)
    args = parser.parse_args(argv)
    try:
        think_ms = [float(part) for part in args.think_ms.split(",") if part]
    except ValueError:
        parser.error(f"--think-ms: numbers of milliseconds separated by commas, not {args.think_ms[:60]!r}")
    if not think_ms or any(not 0 <= think <= 1000 for think in think_ms):
        parser.error("--think-ms: one to many values from 0 to 1000")
    if args.calls < 1 or args.repetitions < 1:
        parser.error("--calls and --repetitions must be at least 1")
    target = resolve_target(args.target)
    try:
        loop = BareLoop(target, drain_stderr=True)
    except ServerDidNotStart as error:
        print(f"benchmarks.think_time: {error}", file=sys.stderr)
        return 2
    try:
        rows = measure(loop, think_ms, args.calls, args.repetitions)
    finally:
        loop.close()
    print(render(target.spec, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
