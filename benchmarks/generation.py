"""What hypothesis costs per example, alone and with each of the suite's main strategies.

A run's examples each pay hypothesis' engine (choosing the example, running it, recording it) and then
what their strategies draw. This times a test that does nothing under the suite's `ci` settings, first
with one drawn integer (the engine alone: `benchmarks/floor.py` uses it for its least wall), then with
each strategy of `conformance/calls/strategies.py` the suite draws most, and prints the CPU per example
and its multiple of the engine alone. A strategy change meant to make runs cheaper is measured here
before and after (examples counted as a run counts them; the rounds alternate over all rows, and each row
is the median of its `--rounds`; quote the multiples, which compare rows measured in the same minutes):

    python -m benchmarks.generation [--examples 500] [--rounds 3] [--only json_values,envelopes]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from benchmarks.rounds import rotated
from conformance.suite.hypothesis_hooks import ExampleStatus, watch_examples
from conformance.suite.profiles import register_profiles

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

ENGINE: Final = "engine alone (one integer)"
STRATEGIES: Final = (
    "json_values", "optional_values", "raw_arguments", "adversarial_envelopes", "envelopes", "strings",
    "numbers", "content_texts", "branch_labels", "label_specs",
)
"""Strategies of conformance/calls/strategies.py, by name, the suite's properties draw most."""
WARMUP_EXAMPLES: Final = 20


def cost_per_example(strategy: SearchStrategy[object] | None = None, examples: int = 1000,
                     rounds: int = 3) -> float:
    """CPU seconds per example of a test that does nothing with one value of `strategy` (an unbounded
    integer when None: the engine alone), under the suite's `ci` settings, per example the engine ran."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    register_profiles()
    chosen = settings(settings.get_profile("conformance-ci"), max_examples=examples)
    drawn = st.integers() if strategy is None else strategy
    per_example: list[float] = []
    for _ in range(rounds):
        ran: list[ExampleStatus] = []

        @chosen
        @given(drawn)
        def nothing(value: object) -> None:
            del value

        stop = watch_examples(ran.append)
        began = time.process_time()
        try:
            nothing()
        finally:
            stop()
        per_example.append((time.process_time() - began) / max(len(ran), 1))
    return statistics.median(per_example)


def measure(names: Sequence[str], examples: int, rounds: int) -> list[tuple[str, float]]:
    """The engine alone, then each named strategy: every one is first drawn briefly untimed (first-use
    costs such as hypothesis' Unicode tables are nobody's), then the rounds alternate over all of them,
    rotating which goes first, so that load moves every row alike; each row is its median."""
    from conformance.calls import strategies

    drawn: list[tuple[str, SearchStrategy[object] | None]] = [(ENGINE, None)]
    drawn += [(name, getattr(strategies, name)) for name in names]
    for _, strategy in drawn:
        cost_per_example(strategy, WARMUP_EXAMPLES, rounds=1)
    found: dict[str, list[float]] = {name: [] for name, _ in drawn}
    for round_index in range(rounds):
        for name, strategy in rotated(drawn, round_index):
            found[name].append(cost_per_example(strategy, examples, rounds=1))
    return [(name, statistics.median(costs)) for name, costs in found.items()]


def render(rows: Sequence[tuple[str, float]]) -> str:
    engine = rows[0][1] if rows else 0.0
    lines = ["| drawn | CPU per example | × the engine alone |", "|---|---:|---:|"]
    lines += [f"| {name} | {seconds * 1000:.2f} ms | {seconds / engine if engine else 0.0:.1f} |"
              for name, seconds in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.generation", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=500, help="examples per test and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated strategy names (default: all listed)")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(STRATEGIES)
    unknown = [n for n in names if n not in STRATEGIES]
    if unknown:
        parser.error(f"--only: not one of {', '.join(STRATEGIES)}: {', '.join(unknown)[:200]}")
    if not 1 <= args.examples <= 100_000 or not 1 <= args.rounds <= 100:
        parser.error("--examples must be 1 to 100000 and --rounds 1 to 100")
    print(render(measure(names, args.examples, args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
