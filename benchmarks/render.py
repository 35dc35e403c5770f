"""benchmarks.md: the figures of one benchmark run as Markdown tables, ready to quote in the README."""

from __future__ import annotations

from benchmarks.figures import (
    AtlasSection,
    Benchmarks,
    CompareSection,
    DifferencesSection,
    DriversSection,
    Load,
    MemorySection,
    RunSection,
    ServersSection,
)

MIB = 2**20


def _row(*cells: object) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _table(header: tuple[str, ...], rows: list[tuple[object, ...]]) -> list[str]:
    align = ["---" if i == 0 else "---:" for i in range(len(header))]
    return [_row(*header), _row(*align), *(_row(*r) for r in rows), ""]


def _load(load: Load, seconds: float, more: str = "") -> str:
    return f"_{seconds:.0f} s; load average {load.before:.2f} → {load.after:.2f}{more}_"


def _drivers(d: DriversSection) -> list[str]:
    lines = [f"## Round trips against {d.target}", "", _load(d.load, d.seconds), ""]
    lines += _table(
        ("client", "round trips/s (median)", "µs/call", "batches × calls"),
        [
            (r.client, f"{r.median_per_s:,.0f}", f"{r.us_per_call:.1f}", f"{r.batches} × {r.calls_per_batch}")
            for r in d.rates
        ],
    )
    lines += [
        f"- wire / bare = **{d.wire_over_bare:.2f}** (median of paired batches; "
        f"{d.wire_over_bare_stderr_drained:.2f} against a bare loop that drains stderr)",
        f"- SDK / bare = {d.sdk_over_bare:.2f}; SDK / wire = {d.sdk_over_wire:.2f}",
        "",
    ]
    return lines


def _servers(s: ServersSection) -> list[str]:
    lines = ["## Servers: reference vs bare SDK server vs original", "", _load(s.load, s.seconds), ""]
    lines += _table(
        ("server", "calls/s (median)", "cold start ms (median)"),
        [(r.name, f"{r.calls_per_second:,.0f}", f"{r.cold_start_ms:.0f}") for r in s.servers],
    )
    r = s.ratios
    lines += [
        f"- reference / bare: calls/s **{r['reference_over_bare_calls']:.2f}**, "
        f"cold start **{r['reference_over_bare_cold_start']:.2f}**",
        f"- reference / bare-lean (the tool logic's own cost): {r['reference_over_bare_lean_calls']:.2f}",
        f"- reference / original: calls/s {r['reference_over_original_calls']:.2f}, "
        f"cold start {r['reference_over_original_cold_start']:.2f}",
        f"- medians of {s.rounds} rounds of {s.calls_per_round:,} sequential calls",
        "",
    ]
    return lines


def _run(r: RunSection) -> list[str]:
    lines = [
        "## `python -m conformance run`",
        "",
        _load(r.load, r.seconds, f"; seed {r.seed}, {r.repetitions} repetition(s) each"),
        "",
    ]
    lines += _table(
        (
            "target",
            "profile",
            "jobs",
            "wall s (median)",
            "cores used",
            "server processes",
            "calls",
            "examples",
            "ms/example",
            "ms/call",
            "harness RSS MiB: peak (all) / peak / end",
        ),
        [
            (
                run.target,
                run.profile,
                run.jobs,
                f"{run.median_wall_s:.1f}",
                f"{run.cores_used:.2f}",
                run.processes_started,
                f"{run.calls_made:,}",
                f"{run.examples:,}",
                f"{run.ms_per_example:.1f}",
                f"{run.ms_per_call:.2f}",
                f"{run.harness_peak_rss / MIB:.0f} / {run.harness_peak_rss_main / MIB:.0f}"
                f" / {run.harness_end_rss_main / MIB:.0f}",
            )
            for run in r.runs
        ],
    )
    lines += [
        "_harness RSS: peak (all) sums the CLI and its xdist workers (sampled every 0.1 s); peak is the CLI"
        " process's VmHWM; end is its RSS at the last sample before exit. Cores used: CPU seconds of the"
        " whole process tree (servers included) per wall second._",
        "",
    ]
    for sc in r.scaling:
        lines.append(
            f"- {sc.target}: {sc.marginal_ms_per_example:.1f} ms per extra generated example"
            f" ({sc.marginal_ms_per_call:.2f} ms per extra call, {sc.profiles[0]} → {sc.profiles[1]});"
            f" fixed cost {sc.fixed_s:.1f} s (interpreter, imports, server processes, waits)"
        )
    if r.scaling:
        lines.append("")
    unstable = [f"{run.target} {run.profile}" for run in r.runs if not run.same_verdicts_every_repetition]
    if unstable:
        lines += [f"- verdicts changed between repetitions of: {', '.join(unstable)}", ""]
    p = r.parallel
    if p is not None:
        same = "identical" if p.verdicts_identical and p.gate_identical else "**DIFFERENT**"
        lines += [
            f"- `--jobs {p.jobs}` ({p.target} {p.profile}): {p.parallel_median_wall_s:.1f} s vs "
            f"{p.serial_median_wall_s:.1f} s serial, speed-up **{p.speedup:.2f}×**; record verdicts and gate "
            f"{same} to the serial run with the same seed"
            + (f" (differing: {', '.join(p.differing_records)})" if p.differing_records else ""),
            f"- test statuses identical: {p.test_statuses_identical}; generated examples per test identical: "
            f"{p.examples_identical}",
            "",
        ]
    return lines


def _compare(c: CompareSection) -> list[str]:
    lines = [
        "## Compare: two targets side by side",
        "",
        _load(c.load, c.seconds, f"; seed {c.seed}, {c.repetitions} repetition(s), a fresh CLI process each"),
        "",
    ]
    lines += _table(
        ("A", "B", "profile", "median wall", "exit", "differences", "root causes", "programs", "calls/side",
         "budget reached"),
        [
            (r.a, r.b, r.profile, f"{r.median_wall_s:.1f} s", str(r.exit_code), str(r.differences),
             str(r.root_causes), str(r.programs), str(r.calls), "yes" if r.budget_reached else "no")
            for r in c.runs
        ],
    )
    return [*lines, ""]


def _memory(m: MemorySection) -> list[str]:
    lines = [
        "## Memory: the store's growth, and the harness's own",
        "",
        _load(
            m.load,
            m.seconds,
            f"; one process per target, accepted calls with a {m.thought_chars}-character thought,"
            " driven through the suite's session (transcript streamed to disk)",
        ),
        "",
    ]
    calls = [p.calls for p in m.targets[0].checkpoints] if m.targets else []
    header = (
        "target",
        "baseline MiB",
        *(f"after {n:,} MiB" for n in calls),
        "bytes/retained thought",
        "strictly increasing",
        "all retained",
    )
    lines += _table(
        header,
        [
            (
                t.target,
                f"{t.baseline_rss / MIB:.1f}",
                *(f"{p.server_rss / MIB:.1f}" for p in t.checkpoints),
                f"{t.bytes_per_retained_thought:,.0f}",
                "yes" if t.strictly_increasing else "**no**",
                "yes" if t.all_retained else "**no**",
            )
            for t in m.targets
        ],
    )
    lines += ["Harness (this process) over the same calls:", ""]
    half = calls[-1] // 2 if calls else 0
    lines += _table(
        (
            "target driven",
            *(f"after {n:,} MiB" for n in calls),
            "growth MiB",
            f"bytes/call {calls[-2] if len(calls) > 1 else 0:,}→{calls[-1] if calls else 0:,}",
            f"bytes/call {half:,}→{calls[-1] if calls else 0:,}",
            "flat",
            "transcript bytes/call",
        ),
        [
            (
                t.target,
                *(f"{p.harness_rss / MIB:.1f}" for p in t.checkpoints),
                f"{t.harness_growth / MIB:+.1f}",
                f"{t.harness_bytes_per_call:,.1f}",
                f"{t.harness_late_bytes_per_call:,.1f}",
                "yes" if t.harness_flat else "**no**",
                f"{t.transcript_bytes_per_call:,.0f}",
            )
            for t in m.targets
        ],
    )
    lines += [
        f"_flat = harness RSS slope over the second half of the calls below "
        f"{m.harness_flat_threshold_bytes_per_call:.0f} bytes per call (least squares over samples every few"
        " thousand calls); the harness is the benchmark process itself, after the other sections ran_",
        "",
    ]
    return lines


def _atlas(a: AtlasSection) -> list[str]:
    targets = ", ".join(a.targets) or "every published release"
    lines = ["## Atlas", "", _load(a.load, a.seconds, f"; profile {a.profile}, seed {a.seed}, {targets}"), ""]
    lines += _table(
        ("jobs", "wall", "columns", "pairs", "compared", "exit"),
        [(r.jobs, f"{r.wall_s:.0f} s", r.columns, r.pairs, r.compared, r.exit_code) for r in a.runs],
    )
    same = "yes" if a.grids_identical else "**no**"
    return [*lines, "", f"Grids identical serial vs parallel: {same}.", ""]


def markdown(b: Benchmarks) -> str:
    mach = b.machine
    lines = [
        "# Benchmarks",
        "",
        f"`{b.command}` — {b.generated}; Python {mach.python}, Node.js {mach.node or '?'}, {mach.cpus} CPUs, "
        f"{mach.platform}, commit {mach.git_commit or 'uncommitted'}"
        + (" — **quick mode: not figures to quote**" if b.quick else ""),
        "",
    ]
    if b.targets:
        lines += ["## Targets", ""]
        lines += _table(
            ("target", "goal", "measured", "met"),
            [
                (t.name, t.goal, _measured(t.measured, t.unit), "yes" if t.met else "**no**")
                for t in b.targets
            ],
        )
    if b.drivers is not None:
        lines += _drivers(b.drivers)
    if b.servers is not None:
        lines += _servers(b.servers)
    if b.run is not None:
        lines += _run(b.run)
    if b.memory is not None:
        lines += _memory(b.memory)
    if b.compare is not None:
        lines += _compare(b.compare)
    if b.atlas is not None:
        lines += _atlas(b.atlas)
    if b.differences is not None:
        lines += _differences(b.differences)
    return "\n".join(lines).rstrip() + "\n"


def _measured(value: float, unit: str) -> str:
    if unit == "bool":
        return "yes" if value else "no"
    if unit == "ratio":
        return f"{value:.2f}"
    if unit == "x":
        return f"{value:.2f}×"
    if unit == "s":
        return f"{value:.1f} s"
    if unit == "processes":
        return f"{value:.0f}"
    return f"{value:,.1f} {unit}"


def _differences(d: DifferencesSection) -> list[str]:
    lines = ["## Report-time word diff of two boxes differing in one word", "",
             _load(d.load, d.seconds, f"; medians of {d.repetitions}"), ""]
    lines += _table(
        ("thought (characters)", "word_difference", "whole-text word matching", "ratio"),
        [
            (f"{t.chars:,}", f"{t.windowed_s * 1000:.2f} ms",
             f"{t.whole_text_s:.2f} s" if t.whole_text_s is not None else "not run (hours)",
             f"{t.whole_text_s / t.windowed_s:,.0f}×" if t.whole_text_s is not None else "—")
            for t in d.sizes
        ],
    )
    return lines
