"""What each test of the suite costs to run, per profile (fixtures/shards/costs.yaml): the weights
`run --shard I/N` deals the tests by, so that the slowest shard is not the one that gets the heaviest tests.

The table is measured, not guessed: `python -m scripts.refresh_shard_costs RUN_DIR...` writes a profile's
table from the per-test durations of a real run, with where they came from. A test the table does not name (a
new test, a fork's suite) costs the table's default, so every collected test is still dealt.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, model_validator

from conformance.catalog.fixtures import fixtures_dir
from conformance.catalog.schemas import read_validated_yaml
from conformance.core.errors import HarnessError

COSTS_FORMAT: Final = "seqthink-shard-costs/1"
MAX_COST_MS: Final = 86_400_000
"""A day: no test of a run costs more."""


class ShardCostsError(HarnessError):
    """fixtures/shards/costs.yaml cannot be read or does not fit its schema."""


class Measured(BaseModel):
    """Where a table's costs come from: the run whose per-test durations they are."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    command: str = Field(description="the run that measured them (its rerun line)")
    target: str
    profile: str
    seed: str | None
    harness_commit: str | None
    date: str = Field(description="when the run finished (YYYY-MM-DD)")
    run_s: float = Field(description="the run's wall time")
    tests: int = Field(description="the tests whose durations the table holds")


class CostTable(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    measured: Measured
    default_ms: int = Field(ge=1, le=MAX_COST_MS, description="what a test the table does not name costs")
    costs_ms: dict[str, int]


class ShardCostsFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: str
    profiles: dict[str, str] = Field(description="which table deals each profile's runs")
    tables: dict[str, CostTable]

    @model_validator(mode="after")
    def _named_tables_exist(self) -> ShardCostsFile:
        missing = sorted({t for t in self.profiles.values() if t not in self.tables})
        if missing:
            raise ValueError(f"profiles name tables that do not exist: {', '.join(missing)}")
        return self


@dataclass(frozen=True)
class Costs:
    """One profile's weights: every test's cost in milliseconds, known or not."""

    by_test: Mapping[str, int]
    default: int

    def of(self, nodeid: str) -> int:
        return self.by_test.get(cost_key(nodeid), self.default)


def cost_key(nodeid: str) -> str:
    """`path.py::test_x[npm:0.6.2]` → `path.py::test_x`: the parameters (the target spec) cut off the last
    part of the node id."""
    head, sep, name = nodeid.rpartition("::")
    return f"{head}{sep}{name.partition('[')[0]}"


def costs_path() -> Path:
    return fixtures_dir() / "shards" / "costs.yaml"


def load_costs_file(path: Path | None = None) -> ShardCostsFile:
    """Read and validate the cost tables (schema fixtures/schemas/shard_costs.schema.json)."""
    path = path or costs_path()
    schema = fixtures_dir() / "schemas" / "shard_costs.schema.json"
    return read_validated_yaml(path, schema, ShardCostsFile, ShardCostsError, "shard costs")


def costs_for(profile: str, document: ShardCostsFile) -> Costs:
    """The table that deals `profile`'s runs; a profile the file does not map is refused in one line."""
    table = document.profiles.get(profile)
    if table is None:
        raise ShardCostsError(f"no shard cost table deals profile {profile[:40]!r} (`profiles` of "
                              "fixtures/shards/costs.yaml)")
    chosen = document.tables[table]
    return Costs(dict(chosen.costs_ms), chosen.default_ms)


@cache
def shard_costs(profile: str) -> Costs:
    """The shipped weights of `profile`, read once per process."""
    return costs_for(profile, load_costs_file())
