"""The gate of a comparison: which differences a compare baseline accepts, and the report a `compare` writes.

A compare baseline lists difference ids (the stable signatures `compare` prints) with a reason each:

    format: seqthink-compare-baseline/1
    accepted:
      - id: is_error.thoughtNumber.numeric-string.refused-by-a
        reason: upstream #3428 coerces numeric strings
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Final, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from conformance.compare import ComparisonOutcome
from conformance.core.errors import InputError
from conformance.core.identity import harness_identity
from conformance.core.inputs import BASELINE_BYTES, read_yaml, validated
from conformance.report.model import VERDICTS, Comparison, Gate, Preflight, Report, RunInfo, Summary

COMPARE_BASELINE_FORMAT: Final = "seqthink-compare-baseline/1"


class CompareBaselineError(InputError):
    """A compare baseline cannot be read or is not valid (CLI exit status 4)."""


class AcceptedDifference(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, description="a difference id as `compare` reports it")
    reason: str = Field(default="", description="why this difference is expected")


class CompareBaseline(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["seqthink-compare-baseline/1"] = COMPARE_BASELINE_FORMAT
    a: str | None = Field(default=None, description="the first target it was written for (informational)")
    b: str | None = Field(default=None, description="the second target (informational)")
    accepted: list[AcceptedDifference] = Field(default_factory=list)


def load_compare_baseline(path: Path) -> CompareBaseline:
    document = read_yaml(path, what="compare baseline", limit=BASELINE_BYTES, error=CompareBaselineError)
    if not isinstance(document, dict) or document.get("format") != COMPARE_BASELINE_FORMAT:
        raise CompareBaselineError(f"{path} is not a {COMPARE_BASELINE_FORMAT} file")
    return validated(CompareBaseline, document, f"compare baseline {path}", CompareBaselineError)


def dump_compare_baseline(comparison: Comparison) -> str:
    """A baseline accepting every difference of `comparison`; the reasons are for a person to write."""
    baseline = CompareBaseline(
        a=comparison.a.spec,
        b=comparison.b.spec,
        accepted=[AcceptedDifference(id=d.id, reason=f"TODO say why; observed: {d.summary}")
                  for d in comparison.differences],
    )
    header = "# Differences `compare` accepts: ids as report.json lists them, each with its reason.\n"
    return header + yaml.safe_dump(baseline.model_dump(mode="json"), sort_keys=False, allow_unicode=True,
                                   width=110)


def accept(comparison: Comparison, baseline: CompareBaseline | None) -> Comparison:
    """Mark the differences the baseline lists as accepted."""
    if baseline is None:
        return comparison
    ids = {entry.id for entry in baseline.accepted}
    marked = [d.model_copy(update={"accepted": d.id in ids}) for d in comparison.differences]
    return comparison.model_copy(update={"differences": marked})


def comparison_gate(comparison: Comparison, path: str | None) -> Gate:
    """Passes when every difference is accepted (the differences say which are, `Difference.accepted`)."""
    return Gate(baseline=path, passed=all(d.accepted for d in comparison.differences))


def not_seen(comparison: Comparison, baseline: CompareBaseline | None) -> list[str]:
    """Accepted ids this comparison did not observe (a search can miss one; they do not fail the gate)."""
    seen = {d.id for d in comparison.differences}
    return [entry.id for entry in (baseline.accepted if baseline else []) if entry.id not in seen]


def comparison_report(
    outcome: ComparisonOutcome,
    *,
    baseline: CompareBaseline | None = None,
    baseline_path: str | None = None,
    started: str,
    rerun: str,
    processes_started: int,
) -> Report:
    """The report of `compare A B`: no record verdicts, the comparison and its root causes."""
    comparison = accept(outcome.comparison, baseline)
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return Report(
        generated=now,
        target=comparison.a,
        server_info=outcome.server_info,
        protocol_version=outcome.protocol_version,
        harness=harness_identity(profile=outcome.profile, seed=str(outcome.seed)),
        preflight=Preflight(ok=True, tool_offered=True, tools=outcome.tools),
        run=RunInfo(
            started=started,
            finished=now,
            duration_s=outcome.duration_s,
            jobs=1,
            processes_started=processes_started,
            calls_made=comparison.calls,
            tests=0,
            rerun=rerun,
        ),
        summary=Summary(records=0, counts={v: 0 for v in VERDICTS}, observed=0, moved_to_observed=0,
                        examples=comparison.programs),
        gate=comparison_gate(comparison, baseline_path),
        records=[],
        root_causes=outcome.root_causes,
        comparison=comparison,
    )
