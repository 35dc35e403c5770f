"""The cost of a whole `python -m conformance run`, as a user or a CI job pays it, and the harness's memory.

Each run is a fresh process (interpreter start included in the wall time), started as the leader of
its own session: the servers it spawns live in sessions of their own, so every process left in that
session (the CLI and, with `--jobs`, its pytest-xdist workers) is the harness. A thread sums their
resident memory several times a second and keeps the peak. Figures the harness counts itself
(server processes started, calls made, generated examples) are read from the run's report.json.
"""

from __future__ import annotations

import os
import resource
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from benchmarks.figures import ParallelCheck, RunFigures, RunScaling
from benchmarks.rounds import rotated
from conformance.core.identity import ShardIdentity
from conformance.gate.run_options import RunOptions
from conformance.report.json import load_report
from conformance.report.model import Report

_PAGE: Final = os.sysconf("SC_PAGE_SIZE")
RUN_TIMEOUT: Final = 1200.0


@dataclass(frozen=True)
class RunConfig:
    target: str
    profile: str
    jobs: int = 1
    shard: ShardIdentity | None = None

    @property
    def label(self) -> str:
        jobs = f" --jobs {self.jobs}" if self.jobs > 1 else ""
        shard = f" --shard {self.shard}" if self.shard is not None else ""
        return f"{self.target} {self.profile}{jobs}{shard}"


@dataclass(frozen=True)
class RunSample:
    """One repetition: what the stopwatch, the memory sampler and report.json said."""

    wall_s: float
    cpu_s: float
    exit_code: int
    report: Report
    peak_rss: int
    peak_rss_main: int
    end_rss_main: int

    @property
    def verdicts(self) -> dict[str, str]:
        return verdicts(self.report)

    @property
    def test_statuses(self) -> dict[str, str]:
        return {nodeid: t.status for nodeid, t in self.report.tests_once().items()}

    @property
    def test_examples(self) -> dict[str, int]:
        return {nodeid: t.examples for nodeid, t in self.report.tests_once().items()}


def _status_kib(pid: int | str, *keys: bytes) -> list[int]:
    """Fields of /proc/<pid>/status in KiB, in the order asked (0 when the process is gone)."""
    found = dict.fromkeys(keys, 0)
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                key = line.split(b":", 1)[0]
                if key in found:
                    found[key] = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return [found[k] for k in keys]


def session_rss(session: int) -> int:
    """Summed RSS (bytes) of every process in `session`, from /proc."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
            if int(stat[stat.rfind(b")") + 2 :].split()[3]) != session:
                continue
            with open(f"/proc/{entry}/statm", "rb") as handle:
                total += int(handle.read().split()[1]) * _PAGE
        except (OSError, ValueError, IndexError):
            continue
    return total


class PeakMemory:
    """Samples a session's summed RSS on a thread until stopped; keeps the peaks.

    The leader's own peak is its VmHWM (exact, kept by the kernel); the session's summed peak is
    sampled, so a spike shorter than the interval can be missed.
    """

    def __init__(self, session: int, interval: float = 0.1) -> None:
        self.session = session
        self.interval = interval
        self.peak = 0
        self.peak_leader = 0
        self.last_leader = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="peak-memory", daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, session_rss(self.session))
            hwm, rss = _status_kib(self.session, b"VmHWM", b"VmRSS")
            if rss:
                self.peak_leader = max(self.peak_leader, hwm * 1024)
                self.last_leader = rss * 1024
            self._stop.wait(self.interval)


def conformance_run(config: RunConfig, seed: int, out: Path, timeout: float = RUN_TIMEOUT) -> RunSample:
    """One `python -m conformance run`; exit status 0 and 1 are both a finished run, 2 is not."""
    command = RunOptions(target=config.target, profile=config.profile, seed=seed, out=out,
                         jobs=config.jobs, shard=config.shard).command(sys.executable, local=True)
    out.mkdir(parents=True, exist_ok=True)
    log = out.parent / f"{out.name}.log"
    with log.open("wb") as handle:
        cpu_before = cpu_seconds(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)
        with PeakMemory(proc.pid) as memory:
            try:
                exit_code = proc.wait(timeout)
            except subprocess.TimeoutExpired:
                _stop_group(proc)
                raise RuntimeError(f"{config.label}: no result within {timeout:.0f} s (log: {log})") from None
            except BaseException:
                _stop_group(proc)
                raise
        wall = time.perf_counter() - started
        cpu = cpu_seconds(resource.RUSAGE_CHILDREN) - cpu_before
    if exit_code not in (0, 1):
        tail = log.read_text(encoding="utf-8", errors="replace")[-1500:]
        raise RuntimeError(f"{config.label}: exit status {exit_code}:\n{tail}")
    report = load_report(out / "report.json")
    return RunSample(wall, cpu, exit_code, report, memory.peak, memory.peak_leader, memory.last_leader)


def cpu_seconds(who: int) -> float:
    """User and system CPU seconds of this process (RUSAGE_SELF) or of every descendant it reaped
    (RUSAGE_CHILDREN: a run's CLI, its workers and the servers they reaped)."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def verdicts(report: Report) -> dict[str, str]:
    """Each record's verdict in a report."""
    return {rv.id: rv.verdict for rv in report.records}


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Ctrl-C first, so the harness ends its own servers; then SIGKILL for whatever is left."""
    try:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(15)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        pass
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def measure(
    configs: Sequence[RunConfig],
    repetitions: int,
    seed: int,
    scratch: Path,
    progress: Callable[[str], None],
) -> dict[RunConfig, list[RunSample]]:
    """Every config `repetitions` times, the order rotating each round so load spreads evenly."""
    samples: dict[RunConfig, list[RunSample]] = {config: [] for config in configs}
    for repetition in range(repetitions):
        for config in rotated(configs, repetition):
            out = scratch / f"{config.target.replace(':', '_')}-{config.profile}-j{config.jobs}-{repetition}"
            sample = conformance_run(config, seed, out)
            samples[config].append(sample)
            run = sample.report.run
            progress(
                f"run {repetition + 1}/{repetitions} {config.label}: {sample.wall_s:.1f} s, "
                f"{run.processes_started} processes, {run.calls_made} calls, "
                f"{sample.report.summary.examples} examples, harness peak {sample.peak_rss / 2**20:.0f} MiB"
            )
    return samples


def figures(config: RunConfig, samples: Sequence[RunSample]) -> RunFigures:
    walls = [s.wall_s for s in samples]
    median_wall = statistics.median(walls)
    examples = int(statistics.median(s.report.summary.examples for s in samples))
    calls = int(statistics.median(s.report.run.calls_made for s in samples))
    first = samples[0]
    return RunFigures(
        target=config.target,
        profile=config.profile,
        jobs=config.jobs,
        wall_s=walls,
        median_wall_s=median_wall,
        median_reported_duration_s=statistics.median(s.report.run.duration_s for s in samples),
        processes_started=max(s.report.run.processes_started for s in samples),
        calls_made=calls,
        examples=examples,
        tests=first.report.run.tests,
        ms_per_example=1000 * median_wall / examples if examples else 0.0,
        ms_per_call=1000 * median_wall / calls if calls else 0.0,
        exit_codes=[s.exit_code for s in samples],
        verdict_counts=dict(first.report.summary.counts),
        same_verdicts_every_repetition=all(s.verdicts == first.verdicts for s in samples),
        harness_peak_rss=max(s.peak_rss for s in samples),
        harness_peak_rss_main=max(s.peak_rss_main for s in samples),
        harness_end_rss_main=max(s.end_rss_main for s in samples),
        median_cpu_s=statistics.median(s.cpu_s for s in samples),
        cores_used=statistics.median(s.cpu_s / s.wall_s for s in samples),
    )


def gate_key(report: Report) -> tuple[bool, tuple[tuple[str, ...], ...]]:
    """The gate's decision and which records it lists where (not the wording of the reasons)."""
    gate = report.gate
    lists = (gate.expected, gate.unexpected, gate.stale, gate.unconfirmed)
    return gate.passed, tuple(tuple(sorted(e.record for e in entries)) for entries in lists)


def parallel_check(
    serial: Sequence[RunSample], parallel: Sequence[RunSample], config: RunConfig
) -> ParallelCheck:
    """Every parallel repetition against the first serial one: same seed, so the same verdicts are due."""
    reference = serial[0]
    differing = sorted(
        {
            rid
            for sample in parallel
            for rid in reference.verdicts.keys() | sample.verdicts.keys()
            if reference.verdicts.get(rid) != sample.verdicts.get(rid)
        }
    )
    serial_wall = statistics.median(s.wall_s for s in serial)
    parallel_wall = statistics.median(s.wall_s for s in parallel)
    return ParallelCheck(
        target=config.target,
        profile=config.profile,
        jobs=config.jobs,
        serial_median_wall_s=serial_wall,
        parallel_median_wall_s=parallel_wall,
        speedup=serial_wall / parallel_wall,
        verdicts_identical=not differing,
        differing_records=differing,
        gate_identical=all(gate_key(s.report) == gate_key(reference.report) for s in parallel),
        test_statuses_identical=all(s.test_statuses == reference.test_statuses for s in parallel),
        examples_identical=all(s.test_examples == reference.test_examples for s in parallel),
    )


def scaling(small: RunFigures, large: RunFigures) -> RunScaling | None:
    """Fixed and per-example cost of one target from a smaller and a larger profile's serial runs."""
    examples, calls = large.examples - small.examples, large.calls_made - small.calls_made
    if examples <= 0 or calls <= 0:
        return None
    extra = large.median_wall_s - small.median_wall_s
    per_example = extra / examples
    return RunScaling(
        target=small.target,
        profiles=(small.profile, large.profile),
        marginal_ms_per_example=1000 * per_example,
        marginal_ms_per_call=1000 * extra / calls,
        fixed_s=small.median_wall_s - per_example * small.examples,
    )
