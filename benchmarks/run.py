"""Every performance figure of the project in one run: `python -m benchmarks.run`.

Sections (all by default; pick with `--only drivers,servers,run,memory,compare`):

- drivers: sequential round trips per second against npm:0.6.2 through a bare blocking
           write/readline loop, the wire driver and the SDK driver (bench_drivers.py);
- servers: calls per second and cold start of the reference, a bare `mcp` low-level server with a
           constant tool, and the original (bench_reference.py);
- run:     wall time of `python -m conformance run` per target and profile, with the server processes
           started and calls made from its report, and a `--jobs 2` run checked against the serial
           run of the same seed (harness_runs.py);
- memory:  server RSS after 1,000 / 10,000 / 100,000 accepted calls on one process, and the harness's
           own RSS over the same calls (memory.py);
- compare: wall time of `python -m conformance compare A B` (dev) for npm:2026.8.31 vs npm:0.6.2,
           npm:2026.7.4 vs npm:2025.12.18 and reference vs npm:0.6.2, with what each found
           (compare_runs.py);
- atlas:   wall time of `python -m conformance atlas` over every published release (ci profile),
           serial and `--jobs 2`, with their grids checked equal (atlas_runs.py);
- differences: report-time word diffs of two stderr boxes differing in one word (1 KiB to 1 MiB),
           beside whole-text word matching, the approach they replaced, where it can finish
           (differences.py).

Figures are medians over repetitions; ratios compare figures of this same run. Writes
reports/benchmarks/benchmarks.json and benchmarks.md (or `--out DIR`). `--quick` is for trying the
script out: few repetitions and calls, no figure worth quoting.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import platform
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final, TypeVar

from benchmarks import (
    atlas_runs,
    bench_drivers,
    bench_reference,
    compare_runs,
    differences,
    harness_runs,
    memory,
)
from benchmarks.figures import (
    SECTIONS,
    AtlasSection,
    Benchmarks,
    CompareSection,
    DifferencesSection,
    DiffFigures,
    DriverRate,
    DriversSection,
    Load,
    Machine,
    MemoryPoint,
    MemorySection,
    MemoryTarget,
    RunSection,
    Section,
    ServerRate,
    ServersSection,
    TargetCheck,
)
from benchmarks.harness_runs import RunConfig
from benchmarks.render import markdown
from conformance.core.identity import git_commit
from conformance.targets.specs import resolve_target

REPO: Final = Path(__file__).resolve().parent.parent
DEFAULT_OUT: Final = REPO / "reports" / "benchmarks"
ORIGINAL: Final = "npm:0.6.2"
HARNESS_FLAT_BYTES_PER_CALL: Final = 50.0
"""Harness RSS growth per call, over the second half of the calls, below which it counts as flat
(2.4 MiB over 50,000 calls): bounded buffers fill early and then stop growing; a leak keeps going."""

T = TypeVar("T")


@dataclass(frozen=True)
class Plan:
    """How much of everything to measure."""

    driver_calls: int
    driver_repetitions: int
    driver_warmup: int
    sdk_calls: int
    server_rounds: int
    server_calls: int
    server_warmup: int
    run_repetitions: int
    profiles: tuple[str, ...]
    jobs: int
    memory_checkpoints: tuple[int, ...]
    memory_sample_every: int
    atlas_targets: tuple[str, ...] = ()
    atlas_profile: str = "ci"


FULL: Final = Plan(
    driver_calls=100,
    driver_repetitions=41,
    driver_warmup=200,
    sdk_calls=100,
    server_rounds=7,
    server_calls=3000,
    server_warmup=300,
    run_repetitions=3,
    profiles=("dev", "ci"),
    jobs=2,
    memory_checkpoints=(1_000, 10_000, 100_000),
    memory_sample_every=5_000,
)
QUICK: Final = Plan(
    driver_calls=30,
    driver_repetitions=5,
    driver_warmup=30,
    sdk_calls=30,
    server_rounds=2,
    server_calls=300,
    server_warmup=50,
    run_repetitions=1,
    profiles=("dev", "ci"),
    jobs=2,
    memory_checkpoints=(1_000, 3_000, 10_000),
    memory_sample_every=1_000,
    atlas_targets=("npm:0.6.2", "npm:2025.7.1"),
    atlas_profile="dev",
)


def say(line: str) -> None:
    print(f"[{dt.datetime.now():%H:%M:%S} load {os.getloadavg()[0]:.2f}] {line}", file=sys.stderr, flush=True)


def timed(work: Callable[[], T]) -> tuple[T, Load, float]:
    """Run `work`, with the load average before and after it and the seconds it took."""
    before, started = os.getloadavg()[0], time.perf_counter()
    result = work()
    return result, Load(before=before, after=os.getloadavg()[0]), time.perf_counter() - started


# -- sections ------------------------------------------------------------------------------------


def drivers_section(plan: Plan) -> DriversSection:
    target = resolve_target(ORIGINAL, progress=say)
    say(
        f"drivers: {plan.driver_repetitions} batches of {plan.driver_calls} calls per client"
        f" against {ORIGINAL}"
    )
    results, load, seconds = timed(
        lambda: bench_drivers.measure(
            target, plan.driver_calls, plan.driver_repetitions, plan.sdk_calls, plan.driver_warmup
        )
    )
    by_name = {r.driver: r for r in results}
    wire, bare = by_name[bench_drivers.WIRE], by_name[bench_drivers.BARE]
    sdk = by_name[bench_drivers.SDK]
    ratio, per_batch = bench_drivers.paired_ratio(wire, bare)
    drained, _ = bench_drivers.paired_ratio(wire, by_name[bench_drivers.BARE_PIPE])
    return DriversSection(
        target=ORIGINAL,
        load=load,
        seconds=seconds,
        rates=[
            DriverRate(
                client=r.driver,
                calls_per_batch=r.calls_per_repetition,
                batches=len(r.repetitions),
                median_per_s=r.median,
                min_per_s=min(r.repetitions),
                max_per_s=max(r.repetitions),
                us_per_call=1e6 / r.median,
            )
            for r in results
        ],
        wire_over_bare=ratio,
        wire_over_bare_per_batch=per_batch,
        wire_over_bare_stderr_drained=drained,
        sdk_over_bare=sdk.median / bare.median,
        sdk_over_wire=sdk.median / wire.median,
    )


def servers_section(plan: Plan) -> ServersSection:
    say(f"servers: {plan.server_rounds} rounds of {plan.server_calls} calls per server")
    summary, load, seconds = timed(
        lambda: bench_reference.run(
            plan.server_rounds, plan.server_calls, lambda line: say(f"servers: {line}"), plan.server_warmup
        )
    )
    ratios = summary.pop("ratios")
    return ServersSection(
        load=load,
        seconds=seconds,
        rounds=plan.server_rounds,
        calls_per_round=plan.server_calls,
        servers=[
            ServerRate(
                name=name, calls_per_second=row["calls_per_second"], cold_start_ms=row["cold_start_ms"]
            )
            for name, row in summary.items()
        ],
        ratios=ratios,
    )


def run_configs(plan: Plan) -> list[RunConfig]:
    configs = [RunConfig(target, profile) for target in ("reference", ORIGINAL) for profile in plan.profiles]
    if plan.jobs > 1 and "ci" in plan.profiles:
        configs.append(RunConfig(ORIGINAL, "ci", plan.jobs))
    return configs


def run_section(plan: Plan, seed: int) -> RunSection:
    configs = run_configs(plan)
    say(f"run: {', '.join(c.label for c in configs)}; {plan.run_repetitions} repetition(s), seed {seed}")
    with tempfile.TemporaryDirectory(prefix="seqthink-bench-run-") as tmp:
        samples, load, seconds = timed(
            lambda: harness_runs.measure(configs, plan.run_repetitions, seed, Path(tmp), say)
        )
    serial, parallel = RunConfig(ORIGINAL, "ci"), RunConfig(ORIGINAL, "ci", plan.jobs)
    check = None
    if serial in samples and parallel in samples:
        check = harness_runs.parallel_check(samples[serial], samples[parallel], parallel)
    runs = [harness_runs.figures(config, found) for config, found in samples.items()]
    serial_runs = {(run.target, run.profile): run for run in runs if run.jobs == 1}
    scalings = [
        harness_runs.scaling(serial_runs[(target, "dev")], serial_runs[(target, "ci")])
        for target in ("reference", ORIGINAL)
        if (target, "dev") in serial_runs and (target, "ci") in serial_runs
    ]
    return RunSection(
        load=load,
        seconds=seconds,
        seed=seed,
        repetitions=plan.run_repetitions,
        runs=runs,
        scaling=[s for s in scalings if s is not None],
        parallel=check,
    )


def memory_section(plan: Plan) -> MemorySection:
    checkpoints = plan.memory_checkpoints
    say(f"memory: {', '.join(f'{n:,}' for n in checkpoints)} accepted calls on one process per target")

    def measure_all() -> list[memory.Growth]:
        with tempfile.TemporaryDirectory(prefix="seqthink-bench-memory-") as tmp:
            return [
                memory.measure(
                    spec,
                    checkpoints,
                    transcript_dir=Path(tmp),
                    sample_every=plan.memory_sample_every,
                    progress=lambda line: say(f"memory: {line}"),
                )
                for spec in ("reference", ORIGINAL)
            ]

    growths, load, seconds = timed(measure_all)
    lo, hi = checkpoints[-2], checkpoints[-1]
    targets = []
    for g in growths:
        harness_slope = g.harness_bytes_per_call(lo, hi)
        try:
            late_slope = g.harness_bytes_per_call(hi // 2, hi)
        except ValueError:
            late_slope = harness_slope
        targets.append(
            MemoryTarget(
                target=g.target,
                baseline_rss=g.baseline_rss,
                checkpoints=[
                    MemoryPoint(
                        calls=n,
                        server_rss=g.rss[n],
                        thought_history_length=g.history_length[n],
                        harness_rss=g.harness_rss[n],
                    )
                    for n in checkpoints
                ],
                bytes_per_retained_thought=g.bytes_per_thought(lo, hi),
                strictly_increasing=g.strictly_increasing,
                all_retained=g.all_retained,
                harness_bytes_per_call=harness_slope,
                harness_late_bytes_per_call=late_slope,
                harness_growth=g.harness_rss[hi] - g.harness_rss[checkpoints[0]],
                harness_flat=late_slope < HARNESS_FLAT_BYTES_PER_CALL,
                transcript_bytes_per_call=g.transcript_bytes / hi,
            )
        )
    return MemorySection(
        load=load,
        seconds=seconds,
        thought_chars=len(memory.THOUGHT),
        harness_flat_threshold_bytes_per_call=HARNESS_FLAT_BYTES_PER_CALL,
        targets=targets,
    )


def compare_section(plan: Plan, seed: int) -> CompareSection:
    pairs = compare_runs.PAIRS
    say(f"compare: {', '.join(f'{a} vs {b}' for a, b in pairs)}; {plan.run_repetitions} repetition(s)")
    with tempfile.TemporaryDirectory(prefix="seqthink-bench-compare-") as tmp:
        runs, load, seconds = timed(
            lambda: compare_runs.measure(pairs, "dev", plan.run_repetitions, seed, Path(tmp), say)
        )
    return CompareSection(load=load, seconds=seconds, seed=seed, repetitions=plan.run_repetitions, runs=runs)


def differences_section(plan: Plan) -> DifferencesSection:
    repetitions = max(plan.run_repetitions, 3)
    say(f"differences: boxes of {', '.join(f'{n:,}' for n in differences.SIZES)} characters, "
        f"{repetitions} repetitions")
    timings, load, seconds = timed(lambda: differences.measure(repetitions))
    sizes = [DiffFigures(chars=t.chars, windowed_s=t.windowed_s, whole_text_s=t.whole_text_s)
             for t in timings]
    return DifferencesSection(load=load, seconds=seconds, repetitions=repetitions, sizes=sizes)


def atlas_section(plan: Plan, seed: int, keep: Path | None) -> AtlasSection:
    with tempfile.TemporaryDirectory(prefix="seqthink-bench-atlas-") as tmp:
        (runs, identical), load, seconds = timed(
            lambda: atlas_runs.measure(
                plan.atlas_targets, plan.atlas_profile, seed, sorted({1, plan.jobs}), Path(tmp), say, keep
            )
        )
    return AtlasSection(
        load=load,
        seconds=seconds,
        profile=plan.atlas_profile,
        seed=seed,
        targets=list(plan.atlas_targets),
        runs=runs,
        grids_identical=identical,
    )


# -- targets -------------------------------------------------------------------------------------


def target_checks(result: Benchmarks) -> list[TargetCheck]:
    """The issues' targets, each next to the figure this run measured for it."""
    checks: list[TargetCheck] = []

    def check(name: str, goal: str, measured: float, unit: str, met: bool) -> None:
        checks.append(TargetCheck(name=name, goal=goal, measured=measured, unit=unit, met=met))

    if result.drivers is not None:
        ratio = result.drivers.wire_over_bare
        check("wire driver vs bare loop (round trips/s)", ">= 0.80", ratio, "ratio", ratio >= 0.80)
    if result.servers is not None:
        ratios = result.servers.ratios
        calls, cold = ratios["reference_over_bare_calls"], ratios["reference_over_bare_cold_start"]
        check("reference vs bare SDK server (calls/s)", ">= 0.90", calls, "ratio", calls >= 0.90)
        lean = ratios["reference_over_bare_lean_calls"]
        check(
            "reference vs bare server on the same transport, no tracing (calls/s)",
            ">= 0.90",
            lean,
            "ratio",
            lean >= 0.90,
        )
        check("reference vs bare SDK server (cold start)", "<= 1.20", cold, "ratio", cold <= 1.20)
    if result.run is not None:
        limits = {(ORIGINAL, "dev"): 20.0, (ORIGINAL, "ci"): 90.0, ("reference", "dev"): 20.0,
                  ("reference", "ci"): 35.0}
        for run in result.run.runs:
            limit = limits.get((run.target, run.profile), 0.0)
            if run.jobs == 1 and limit:
                check(
                    f"run {run.target} {run.profile} (wall)",
                    f"<= {limit:.0f} s",
                    run.median_wall_s,
                    "s",
                    run.median_wall_s <= limit,
                )
        serial_of = {(run.target, run.profile): run for run in result.run.runs if run.jobs == 1}
        for profile in ("dev", "ci"):
            reference, original = serial_of.get(("reference", profile)), serial_of.get((ORIGINAL, profile))
            if reference is not None and original is not None and original.median_wall_s:
                ratio = reference.median_wall_s / original.median_wall_s
                name = f"run reference / {ORIGINAL} {profile} (wall)"
                check(name, "<= 1.20", ratio, "ratio", ratio <= 1.20)
        for run in result.run.runs:
            if run.profile == "ci" and run.jobs == 1:
                check(
                    f"server processes per ci run ({run.target})",
                    "< 10",
                    run.processes_started,
                    "processes",
                    run.processes_started < 10,
                )
        if result.run.parallel is not None:
            p = result.run.parallel
            same = p.verdicts_identical and p.gate_identical
            check(
                f"--jobs {p.jobs} verdicts identical to serial (same seed)",
                "identical",
                float(same),
                "bool",
                same,
            )
            check(f"--jobs {p.jobs} speed-up on {os.cpu_count()} cores", "> 1", p.speedup, "x", p.speedup > 1)
    if result.memory is not None:
        for m in result.memory.targets:
            check(
                f"store RSS never plateaus ({m.target})",
                "strictly increasing",
                float(m.strictly_increasing),
                "bool",
                m.strictly_increasing and m.all_retained,
            )
            check(
                f"harness RSS flat, calls {m.checkpoints[-1].calls // 2:,} to {m.checkpoints[-1].calls:,}"
                f" ({m.target})",
                f"< {result.memory.harness_flat_threshold_bytes_per_call:.0f} B/call",
                m.harness_late_bytes_per_call,
                "B/call",
                m.harness_flat,
            )
    if result.atlas is not None and len(result.atlas.runs) > 1:
        serial, parallel = result.atlas.runs[0], result.atlas.runs[-1]
        speedup = serial.wall_s / parallel.wall_s if parallel.wall_s else 0.0
        check(f"atlas --jobs {parallel.jobs} speed-up over serial", "> 1", speedup, "x", speedup > 1)
        check(
            f"atlas --jobs {parallel.jobs} grid identical to serial (same seed)",
            "identical",
            float(result.atlas.grids_identical),
            "bool",
            result.atlas.grids_identical,
        )
    if result.compare is not None:
        for c in result.compare.runs:
            if c.node_pair:
                wall = c.median_wall_s
                check(f"compare {c.a} {c.b} dev (wall)", "<= 30 s", wall, "s", wall <= 30)
    return checks


# -- command line --------------------------------------------------------------------------------


def _sections(text: str) -> list[Section]:
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [part for part in chosen if part not in SECTIONS]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"sections are {', '.join(SECTIONS)}; got {text!r}")
    return [s for s in SECTIONS if s in chosen]


def _counts(text: str) -> tuple[int, ...]:
    try:
        values = tuple(sorted(int(part.replace("_", "")) for part in text.split(",")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers separated by commas: {text!r}") from None
    if len(values) < 2 or values[0] < 1:
        raise argparse.ArgumentTypeError("expected at least two positive checkpoints")
    return values


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--only",
        type=_sections,
        default=list(SECTIONS),
        metavar="SECTIONS",
        help=f"comma-separated sections to measure: {','.join(SECTIONS)} (default: all)",
    )
    parser.add_argument("--quick", action="store_true", help="few repetitions and calls (trying it out)")
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help="where benchmarks.json and benchmarks.md go (default: reports/benchmarks)",
    )
    parser.add_argument(
        "--repetitions",
        type=int,
        default=None,
        metavar="N",
        help="override repetitions: driver batches, server rounds and conformance runs",
    )
    parser.add_argument(
        "--calls",
        type=int,
        default=None,
        metavar="N",
        help="override calls per batch (drivers) and per round (servers)",
    )
    parser.add_argument(
        "--profiles", default=None, metavar="LIST", help="profiles timed in the run section (default: dev,ci)"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="workers of the parallel ci run compared with the serial one (default: 2)",
    )
    parser.add_argument(
        "--checkpoints",
        type=_counts,
        default=None,
        metavar="LIST",
        help="accepted calls at which memory is read (default: 1000,10000,100000)",
    )
    parser.add_argument("--seed", type=int, default=1, help="hypothesis seed of every conformance run")
    parser.add_argument(
        "--atlas-out",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep the parallel atlas run's output here (e.g. reports/atlas, then scripts/trim_atlas.py)",
    )
    return parser


def plan_of(args: argparse.Namespace) -> Plan:
    plan = QUICK if args.quick else FULL
    if args.repetitions is not None:
        n = max(1, args.repetitions)
        plan = replace(plan, driver_repetitions=max(2, n), server_rounds=n, run_repetitions=n)
    if args.calls is not None:
        n = max(1, args.calls)
        plan = replace(
            plan,
            driver_calls=n,
            sdk_calls=n,
            server_calls=n,
            driver_warmup=min(plan.driver_warmup, n),
            server_warmup=min(plan.server_warmup, n),
        )
    if args.profiles is not None:
        plan = replace(plan, profiles=tuple(p.strip() for p in args.profiles.split(",") if p.strip()))
    if args.jobs is not None:
        plan = replace(plan, jobs=args.jobs)
    if args.checkpoints is not None:
        plan = replace(
            plan, memory_checkpoints=args.checkpoints, memory_sample_every=max(1, args.checkpoints[0])
        )
    return plan


def machine() -> Machine:
    node = None
    with contextlib.suppress(Exception):  # the figures can still be written without the node version
        node = resolve_target(ORIGINAL).identity.node_version
    return Machine(
        python=platform.python_version(),
        node=node,
        cpus=os.cpu_count(),
        platform=platform.platform(),
        git_commit=git_commit(),
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    plan = plan_of(args)
    sections: list[Section] = args.only
    command = shlex.join(["python", "-m", "benchmarks.run", *(sys.argv[1:] if argv is None else argv)])
    say(f"{command}: sections {', '.join(sections)}{' (quick)' if args.quick else ''}")
    result = Benchmarks(
        generated=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        command=command,
        quick=args.quick,
        sections=sections,
        machine=machine(),
        drivers=drivers_section(plan) if "drivers" in sections else None,
        servers=servers_section(plan) if "servers" in sections else None,
        run=run_section(plan, args.seed) if "run" in sections else None,
        memory=memory_section(plan) if "memory" in sections else None,
        compare=compare_section(plan, args.seed) if "compare" in sections else None,
        atlas=atlas_section(plan, args.seed, args.atlas_out) if "atlas" in sections else None,
        differences=differences_section(plan) if "differences" in sections else None,
    )
    result = result.model_copy(update={"targets": target_checks(result)})
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "benchmarks.json").write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
    text = markdown(result)
    (out / "benchmarks.md").write_text(text, encoding="utf-8")
    print(text)
    say(f"wrote {out / 'benchmarks.json'} and {out / 'benchmarks.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
