"""What a `conformance run` is asked to do, and the one place its command line is written: the report's
rerun line, the atlas's run of each target and the benchmarks' runs are all `RunOptions.command`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from conformance.core.identity import ShardIdentity
from conformance.drivers.capture import DEFAULT_MAX_FRAME

SUITE: Final = "conformance.suite"
CALL_TIMEOUT: Final = 10.0
DEFAULT_ERA: Final = "default"


@dataclass(frozen=True)
class RunOptions:
    target: str
    profile: str
    seed: int
    out: Path
    baseline: Path | None = None
    jobs: int = 1
    cache: Path | None = None
    timeout: float = CALL_TIMEOUT
    suite: str = SUITE
    against: str | None = None
    max_time: float | None = None
    max_frame: int = DEFAULT_MAX_FRAME
    select: tuple[str, ...] = ()
    """Records (IDs, aliases) or kinds the run judges (`catalog/selection.py`); empty: every record."""
    deselect: tuple[str, ...] = ()
    strict_baseline: bool = False
    """Fail the gate on a baseline entry whose reason still says TODO."""
    example_db: Path | None = None
    """Hypothesis' example database: saved counterexamples are replayed first (`suite/profiles.py`)."""
    shard: ShardIdentity | None = None
    era: str = DEFAULT_ERA
    arguments_map: str | None = None
    """`--arguments-map`: a file mapping the original's argument names to the target's, or `snake_case`."""
    """The clients the specification's records are judged with (`suite/era_meetings.py`): `default` is
    `auto` (the newest revision the target accepts; the seed's records stay a 2024-11-05 client's), `all`
    every revision and `auto`."""

    def command(self, python: str = "python", *, local: bool = False) -> list[str]:
        """`python -m conformance run` with the options that decide the examples and verdicts (what a
        report's rerun line quotes) and, with `local`, where this machine keeps the report, the baseline and
        the installs and how long a call may take. Options at their defaults are left out."""
        argv = [python, "-m", "conformance", "run", "--target", self.target, "--profile", self.profile,
                *self._seed()]
        if self.shard is not None:
            argv += ["--shard", str(self.shard)]
        if self.jobs > 1:
            argv += ["--jobs", str(self.jobs)]
        if self.suite != SUITE:
            argv += ["--suite", self.suite]
        if self.against is not None:
            argv += ["--against", self.against]
        if self.max_time is not None:
            argv += ["--max-time", f"{self.max_time:g}"]
        if self.max_frame != DEFAULT_MAX_FRAME:
            argv += ["--max-frame", str(self.max_frame)]
        argv += self._selection()
        if self.arguments_map is not None:
            argv += ["--arguments-map", self.arguments_map]
        if self.era != DEFAULT_ERA:
            argv += ["--era", self.era]
        if self.strict_baseline:
            argv.append("--strict-baseline")
        if self.example_db is not None:
            argv += ["--example-db", str(self.example_db)]
        if local:
            argv += ["--out", str(self.out)]
            if self.baseline is not None:
                argv += ["--baseline", str(self.baseline)]
            if self.timeout != CALL_TIMEOUT:
                argv += ["--call-timeout", str(self.timeout)]
            if self.cache is not None:
                argv += ["--target-cache", str(self.cache)]
        return argv

    @property
    def forced_seed(self) -> int | None:
        """The seed hypothesis is given; none with an example database, which hypothesis does not use under
        a fixed seed (saved counterexamples first, then its own random examples)."""
        return None if self.example_db is not None else self.seed

    def _seed(self) -> list[str]:
        return ["--seed", str(self.forced_seed)] if self.forced_seed is not None else []

    def _selection(self) -> list[str]:
        return [*(a for n in self.select for a in ("--select", n)),
                *(a for n in self.deselect for a in ("--deselect", n))]
