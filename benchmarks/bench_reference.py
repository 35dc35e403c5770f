"""Speed of the reference server next to the SDK's floor and the TypeScript original, in one run.

Three servers, driven by the harness's wire driver over real pipes:

- reference: `python -m reference_server`, every call a valid thought (box on stderr, status JSON);
- bare:      benchmarks/bare_server.py, a bare `mcp` low-level server whose tool returns a constant;
- bare-lean: the same on the reference's stdio framing without the SDK's tracing middleware (what
             the reference runs on), so reference/bare-lean is the cost of the tool logic alone;
- original:  npm:0.6.2 on node.

Per round, in rotating order: cold start (spawn until the initialize answer is read), then
sequential tools/call round trips per second after a warm-up. Medians over the rounds; the ratios
are taken from the same run, so machine load affects both sides alike.

    python -m benchmarks.bench_reference [--rounds 7] [--calls 3000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from benchmarks.rounds import rotated
from conformance.core.jsontypes import JSON
from conformance.drivers.wire import WireDriver
from conformance.targets.specs import resolve_target

HERE: Final = Path(__file__).resolve().parent
THOUGHT: Final[dict[str, JSON]] = {
    "thought": "benchmark thought",
    "thoughtNumber": 1,
    "totalThoughts": 3,
    "nextThoughtNeeded": True,
}
WARMUP: Final = 300


@dataclass
class Server:
    name: str
    command: tuple[str, ...]
    env: dict[str, str]
    tool: str
    arguments: dict[str, JSON]
    cold_starts: list[float] = field(default_factory=list)
    rates: list[float] = field(default_factory=list)


def servers() -> list[Server]:
    reference = resolve_target("reference")
    original = resolve_target("npm:0.6.2")
    return [
        Server("reference", reference.command, dict(reference.env), "sequentialthinking", THOUGHT),
        Server("bare", (sys.executable, str(HERE / "bare_server.py")), {}, "constant", {}),
        Server("bare-lean", (sys.executable, str(HERE / "bare_server.py"), "--lean"), {}, "constant", {}),
        Server("original", original.command, dict(original.env), "sequentialthinking", THOUGHT),
    ]


def measure(server: Server, calls: int, warmup: int = WARMUP) -> None:
    started = time.perf_counter()
    with WireDriver(server.command, env=server.env, timeout=30) as wire:
        wire.initialize()
        server.cold_starts.append(time.perf_counter() - started)
        for _ in range(warmup):
            wire.call_tool(server.tool, server.arguments)
        began = time.perf_counter()
        for _ in range(calls):
            exchange = wire.call_tool(server.tool, server.arguments)
        elapsed = time.perf_counter() - began
        if exchange.is_error or exchange.result is None:
            raise SystemExit(f"{server.name}: the last call failed: {exchange.response}")
        server.rates.append(calls / elapsed)


def run(
    rounds: int, calls: int, report: Callable[[str], None], warmup: int = WARMUP
) -> dict[str, dict[str, float]]:
    measured = servers()
    for index in range(rounds):
        for server in rotated(measured, index):
            measure(server, calls, warmup)
        report(f"round {index + 1}/{rounds}: " + ", ".join(
            f"{s.name} {s.rates[-1]:.0f}/s cold {s.cold_starts[-1] * 1000:.0f} ms" for s in measured
        ))
    summary = {
        server.name: {
            "calls_per_second": statistics.median(server.rates),
            "cold_start_ms": statistics.median(server.cold_starts) * 1000,
        }
        for server in measured
    }
    reference, bare, lean = summary["reference"], summary["bare"], summary["bare-lean"]
    original = summary["original"]
    summary["ratios"] = {
        "reference_over_bare_calls": reference["calls_per_second"] / bare["calls_per_second"],
        "reference_over_bare_cold_start": reference["cold_start_ms"] / bare["cold_start_ms"],
        "reference_over_bare_lean_calls": reference["calls_per_second"] / lean["calls_per_second"],
        "reference_over_original_calls": reference["calls_per_second"] / original["calls_per_second"],
        "reference_over_original_cold_start": reference["cold_start_ms"] / original["cold_start_ms"],
    }
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--json", type=Path, help="also write the summary here")
    args = parser.parse_args(argv)
    summary = run(args.rounds, args.calls, lambda line: print(line, flush=True))
    print(f"\nmedians over {args.rounds} rounds, {args.calls} sequential calls each:")
    for name in ("reference", "bare", "bare-lean", "original"):
        row = summary[name]
        rate, cold = row["calls_per_second"], row["cold_start_ms"]
        print(f"  {name:10} {rate:8.0f} calls/s   cold start {cold:6.0f} ms")
    ratios = summary["ratios"]
    print(f"  reference/bare calls/s      {ratios['reference_over_bare_calls']:.2f}  (target >= 0.90)")
    print(f"  reference/bare cold start   {ratios['reference_over_bare_cold_start']:.2f}  (target <= 1.20)")
    lean = ratios["reference_over_bare_lean_calls"]
    print(f"  reference/bare-lean calls/s {lean:.2f}  (the tool logic's own cost)")
    print(f"  reference/original calls/s {ratios['reference_over_original_calls']:.2f}, "
          f"cold start {ratios['reference_over_original_cold_start']:.2f}")
    if args.json is not None:
        args.json.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
