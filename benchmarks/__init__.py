"""The benchmarks, run from the repository root as `python -m benchmarks.run` (one part alone:
`python -m benchmarks.NAME`); figures in reports/benchmarks/."""
