"""What `benchmarks/run.py` writes to reports/benchmarks/benchmarks.json: one model per section.

Rates are per second, times in seconds unless the name says `_ms`, memory in bytes. Every ratio is
taken between figures measured in the same run, so the machine's load affects both sides alike.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

BENCHMARKS_FORMAT: Final = "seqthink-conformance-benchmarks/1"
Section = Literal["drivers", "servers", "run", "memory", "compare", "atlas", "differences"]
SECTIONS: Final[tuple[Section, ...]] = (
    "drivers", "servers", "run", "memory", "compare", "atlas", "differences",
)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Load(_Frozen):
    """The 1-minute load average when a section started and when it ended (the machine is shared)."""

    before: float
    after: float


class Machine(_Frozen):
    python: str
    node: str | None
    cpus: int | None
    platform: str
    git_commit: str | None


class DriverRate(_Frozen):
    client: str
    calls_per_batch: int
    batches: int
    median_per_s: float
    min_per_s: float
    max_per_s: float
    us_per_call: float


class DriversSection(_Frozen):
    """Sequential round trips per second against one target through each client."""

    target: str
    load: Load
    seconds: float
    rates: list[DriverRate]
    wire_over_bare: float = Field(description="median of per-batch ratios, batches run back to back")
    wire_over_bare_per_batch: list[float]
    wire_over_bare_stderr_drained: float
    sdk_over_bare: float = Field(description="ratio of medians (SDK batches run after the others)")
    sdk_over_wire: float


class ServerRate(_Frozen):
    name: str
    calls_per_second: float
    cold_start_ms: float


class ServersSection(_Frozen):
    """The reference next to the SDK's floor (bare low-level server) and the original."""

    load: Load
    seconds: float
    rounds: int
    calls_per_round: int
    servers: list[ServerRate]
    ratios: dict[str, float]


class RunFigures(_Frozen):
    """`python -m conformance run` for one target, profile and number of jobs, repeated."""

    target: str
    profile: str
    jobs: int
    wall_s: list[float] = Field(description="wall time of each repetition, spawn to exit")
    median_wall_s: float
    median_reported_duration_s: float = Field(description="the run's own duration in report.json")
    processes_started: int
    calls_made: int
    examples: int
    tests: int
    ms_per_example: float
    ms_per_call: float
    exit_codes: list[int]
    verdict_counts: dict[str, int]
    same_verdicts_every_repetition: bool
    harness_peak_rss: int = Field(description="peak of the summed RSS of the harness's own processes")
    harness_peak_rss_main: int = Field(description="peak RSS (VmHWM) of the `conformance run` process itself")
    harness_end_rss_main: int = Field(description="its RSS at the last sample before it exited")
    median_cpu_s: float = Field(description="CPU seconds of the whole process tree, servers included")
    cores_used: float = Field(description="CPU seconds per wall second: the room left for --jobs")


class ParallelCheck(_Frozen):
    """A --jobs N run against the serial run of the same target, profile and seed."""

    target: str
    profile: str
    jobs: int
    serial_median_wall_s: float
    parallel_median_wall_s: float
    speedup: float
    verdicts_identical: bool
    differing_records: list[str]
    gate_identical: bool
    test_statuses_identical: bool
    examples_identical: bool


class RunScaling(_Frozen):
    """Wall time split into a fixed part and a part per generated example, from two profiles' runs."""

    target: str
    profiles: tuple[str, str]
    marginal_ms_per_example: float = Field(description="extra wall time per extra generated example")
    marginal_ms_per_call: float
    fixed_s: float = Field(description="wall time the smaller run would take with no examples at all")


class RunSection(_Frozen):
    load: Load
    seconds: float
    seed: int
    repetitions: int
    runs: list[RunFigures]
    scaling: list[RunScaling] = Field(default_factory=list)
    parallel: ParallelCheck | None


class MemoryPoint(_Frozen):
    calls: int
    server_rss: int
    thought_history_length: int
    harness_rss: int


class MemoryTarget(_Frozen):
    """One server process driven through the suite's session path with a transcript on disk."""

    target: str
    baseline_rss: int
    checkpoints: list[MemoryPoint]
    bytes_per_retained_thought: float = Field(description="slope of server RSS over the last interval")
    strictly_increasing: bool = Field(description="server RSS rose between every pair of checkpoints")
    all_retained: bool = Field(
        description="thoughtHistoryLength equals the accepted calls at every checkpoint"
    )
    harness_bytes_per_call: float = Field(description="slope of the harness's RSS over the last interval")
    harness_late_bytes_per_call: float = Field(
        description="slope of the harness's RSS over the second half of the calls: does it still grow?"
    )
    harness_growth: int = Field(description="harness RSS at the last checkpoint minus at the first")
    harness_flat: bool = Field(description="the late slope is below the threshold")
    transcript_bytes_per_call: float


class MemorySection(_Frozen):
    load: Load
    seconds: float
    thought_chars: int
    harness_flat_threshold_bytes_per_call: float
    targets: list[MemoryTarget]


class CompareFigures(_Frozen):
    """`python -m conformance compare A B` as a fresh process: wall time and what it found."""

    a: str
    b: str
    profile: str
    node_pair: bool
    median_wall_s: float
    walls_s: list[float]
    exit_code: int
    differences: int
    root_causes: int
    programs: int
    calls: int = Field(description="tools/call requests per side")
    budget_reached: bool


class CompareSection(_Frozen):
    load: Load
    seconds: float
    seed: int
    repetitions: int
    runs: list[CompareFigures]


class TargetCheck(_Frozen):
    """One target of the issues, with the figure measured for it in this run."""

    name: str
    goal: str
    measured: float
    unit: str
    met: bool


class AtlasRun(_Frozen):
    """One `python -m conformance atlas` over the same targets, profile and seed."""

    jobs: int
    wall_s: float
    exit_code: int
    columns: int
    pairs: int
    compared: int = Field(description="pairs the compare API ran on")


class AtlasSection(_Frozen):
    load: Load
    seconds: float
    profile: str
    seed: int
    targets: list[str] = Field(description="the targets given (empty: every published release)")
    runs: list[AtlasRun]
    grids_identical: bool = Field(description="the serial and the parallel atlas have the same grid")


class DiffFigures(_Frozen):
    chars: int = Field(description="the thought's length in each box")
    windowed_s: float = Field(description="word_difference, median seconds")
    whole_text_s: float | None = Field(description="difflib over every word of both boxes (the approach "
                                       "word_difference replaced), one measurement; None past its size limit")


class DifferencesSection(_Frozen):
    """Report-time word diffs of two stderr boxes that differ in one word."""

    load: Load
    seconds: float
    repetitions: int
    sizes: list[DiffFigures]


class Benchmarks(_Frozen):
    format: Literal["seqthink-conformance-benchmarks/1"] = BENCHMARKS_FORMAT
    generated: str
    command: str
    quick: bool
    sections: list[Section]
    machine: Machine
    drivers: DriversSection | None = None
    servers: ServersSection | None = None
    run: RunSection | None = None
    memory: MemorySection | None = None
    compare: CompareSection | None = None
    atlas: AtlasSection | None = None
    differences: DifferencesSection | None = None
    targets: list[TargetCheck] = Field(default_factory=list)
