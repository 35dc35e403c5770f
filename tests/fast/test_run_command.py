"""One builder of `python -m conformance run ...` (`RunOptions.command`): the report's rerun line, the
atlas's runs and the benchmarks' all come from it, and the command line's own parser reads it back."""

from __future__ import annotations

import shlex
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conformance.cli.main import build_parser
from conformance.core.identity import MAX_SHARDS, ShardIdentity
from conformance.gate.run_options import SUITE, RunOptions

TARGETS = st.sampled_from(["reference", "npm:0.6.2", "npm:2025.7.1@today", "A=1 cmd:node 'my server.js'"])
PATHS = st.sampled_from([Path("reports/x"), Path("/tmp/a b/c")])


@st.composite
def run_options(draw: st.DrawFn) -> RunOptions:
    return RunOptions(
        target=draw(TARGETS),
        profile=draw(st.sampled_from(["dev", "ci", "thorough"])),
        seed=draw(st.integers(0, 2**32 - 1)),
        out=draw(PATHS),
        baseline=draw(st.none() | PATHS),
        jobs=draw(st.integers(1, 8)),
        cache=draw(st.none() | PATHS),
        timeout=draw(st.floats(0.1, 600, allow_nan=False)),
        suite=draw(st.sampled_from([SUITE, "tests/cli_suite/gate_suite.py"])),
        against=draw(st.none() | TARGETS),
        max_time=draw(st.none() | st.integers(1, 10_000).map(lambda n: n / 4)),
        shard=draw(st.none() | st.integers(1, MAX_SHARDS).flatmap(
            lambda n: st.builds(ShardIdentity, index=st.integers(1, n), count=st.just(n)))),
    )


def test_the_rerun_line_names_what_decides_the_verdicts_only() -> None:
    options = RunOptions(target="reference", profile="dev", seed=7, out=Path("o"), cache=Path("c"))
    rerun = shlex.join(options.command())
    assert rerun == "python -m conformance run --target reference --profile dev --seed 7"
    wider = RunOptions(target="A=1 npm:0.6.2", profile="ci", seed=1, out=Path("o"), jobs=2,
                       against="reference", max_time=90)
    assert shlex.join(wider.command()) == (
        "python -m conformance run --target 'A=1 npm:0.6.2' --profile ci --seed 1 --jobs 2 "
        "--against reference --max-time 90"
    )


@given(run_options())
def test_the_command_line_reads_the_command_back(options: RunOptions) -> None:
    argv = options.command("/usr/bin/python3", local=True)
    assert argv[:4] == ["/usr/bin/python3", "-m", "conformance", "run"]
    args = build_parser().parse_args(argv[3:])
    read = RunOptions(target=args.target, profile=args.profile, seed=args.seed, out=args.out,
                      baseline=args.baseline, jobs=args.jobs, cache=args.target_cache,
                      timeout=args.call_timeout, suite=args.suite, against=args.against,
                      max_time=args.max_time, shard=args.shard)
    assert read == options
