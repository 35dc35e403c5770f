"""Differential runs: two targets driven in lock-step on the same calls, differences minimized, confirmed,
attributed to records and grouped into root causes. The atlas and the command line call `run_comparison`;
the atlas explains a kept comparison again with `explain_again`."""

from conformance.compare.engine import (
    ComparisonOutcome,
    TargetSpec,
    UnusableTarget,
    explain_again,
    run_comparison,
)

__all__ = ["ComparisonOutcome", "TargetSpec", "UnusableTarget", "explain_again", "run_comparison"]
