"""Every option value is checked before anything starts: out of range or of the wrong type, it is a usage
error (exit status 4, one line on stderr, no traceback); in range, the command gets the value it documents.
The properties parse only: they build the parser and start nothing.

The targets named here cannot start (`cmd:/nonexistent/...`): a value wrongly accepted ends in an unusable
target (exit status 2) at once instead of a run.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.catalog.records import Channel
from conformance.cli.arguments import MAX_SECONDS, SEED_LIMIT, UsageError, usable_cores
from conformance.cli.main import build_parser
from conformance.gate.run_options import RunOptions
from tests.cli import assert_one_clean_error_line, cli_here

NOWHERE = "cmd:/nonexistent/seqthink-server"


def _usage_error(*argv: str, says: str) -> None:
    ran = cli_here(*argv)
    assert ran.code == 4, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert says in ran.stderr, ran.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e308", "0", "-1", "ten"])
@pytest.mark.parametrize("command", ["run", "compare", "atlas"])
def test_a_call_timeout_out_of_range_is_a_usage_error(command: str, value: str, tmp_path: Path) -> None:
    argv = {
        "run": ["run", "--target", NOWHERE, "--out", str(tmp_path / "out")],
        "compare": ["compare", NOWHERE, NOWHERE, "--out", str(tmp_path / "out")],
        "atlas": ["atlas", "--merge", str(tmp_path), "--out", str(tmp_path / "out")],
    }[command]
    _usage_error(*argv, f"--call-timeout={value}", says="--call-timeout")
    assert not (tmp_path / "out" / "report.json").exists()


@pytest.mark.parametrize("value", ["-5", "0", "nan", "inf", "1e308"])
def test_a_compare_budget_out_of_range_is_a_usage_error(value: str, tmp_path: Path) -> None:
    _usage_error("compare", NOWHERE, NOWHERE, f"--budget={value}", "--out", str(tmp_path), says="--budget")


@pytest.mark.parametrize("command", ["run", "compare", "atlas"])
@pytest.mark.parametrize("value", ["-1", str(2**32), "1.5", "seven"])
def test_a_seed_outside_the_seed_range_is_refused_by_every_command(
    command: str, value: str, tmp_path: Path
) -> None:
    argv = {
        "run": ["run", "--target", NOWHERE, "--out", str(tmp_path)],
        "compare": ["compare", NOWHERE, NOWHERE, "--out", str(tmp_path)],
        "atlas": ["atlas", "--merge", str(tmp_path), "--out", str(tmp_path / "atlas")],
    }[command]
    _usage_error(*argv, f"--seed={value}", says="--seed")


@pytest.mark.parametrize("command", ["run", "atlas"])
def test_more_jobs_than_four_per_core_is_a_usage_error(command: str, tmp_path: Path) -> None:
    argv = {
        "run": ["run", "--target", NOWHERE, "--out", str(tmp_path)],
        "atlas": ["atlas", "--merge", str(tmp_path), "--out", str(tmp_path / "atlas")],
    }[command]
    _usage_error(*argv, "--jobs", "100000", says="--jobs")


def test_an_unknown_records_channel_is_a_usage_error() -> None:
    _usage_error("records", "--channel", "zzz", says="wire")


def test_an_unknown_records_kind_is_a_usage_error() -> None:
    _usage_error("records", "--kind", "nosuch", says="kinds are")


PARSER = build_parser()
ARGV = {
    "run": ["run", "--target", NOWHERE],
    "compare": ["compare", NOWHERE, NOWHERE],
    "atlas": ["atlas"],
}


def _parsed(argv: list[str]) -> argparse.Namespace | None:
    """The namespace the command would get, or None when the parser refuses the line as a usage error."""
    try:
        return PARSER.parse_args(argv)
    except UsageError:
        return None


@settings(max_examples=150, deadline=None)
@given(
    command=st.sampled_from(["run", "compare", "atlas"]),
    value=st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.text(max_size=12),
    ),
)
def test_a_call_timeout_is_accepted_exactly_when_it_is_a_finite_positive_time_up_to_a_week(
    command: str, value: float | int | str
) -> None:
    text = value if isinstance(value, str) else repr(value)
    try:
        number: float | None = float(text)
    except ValueError:
        number = None
    parsed = _parsed([*ARGV[command], f"--call-timeout={text}"])
    accepted = number is not None and math.isfinite(number) and 0 < number <= MAX_SECONDS
    assert (parsed is not None) is accepted, text
    if parsed is not None:
        assert parsed.call_timeout == number


@settings(max_examples=150, deadline=None)
@given(command=st.sampled_from(["run", "compare", "atlas"]), value=st.integers(-(2**40), 2**40))
def test_a_seed_is_accepted_exactly_in_hypothesis_range_by_every_command(command: str, value: int) -> None:
    parsed = _parsed([*ARGV[command], f"--seed={value}"])
    assert (parsed is not None) is (0 <= value < SEED_LIMIT)
    if parsed is not None:
        assert parsed.seed == value


@settings(max_examples=100, deadline=None)
@given(command=st.sampled_from(["run", "atlas"]), value=st.integers(min_value=-10, max_value=10_000))
def test_jobs_are_accepted_from_one_to_four_per_core(command: str, value: int) -> None:
    parsed = _parsed([*ARGV[command], "--jobs", str(value)])
    assert (parsed is not None) is (1 <= value <= 4 * usable_cores())


@settings(max_examples=100, deadline=None)
@given(value=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(10**9), 10**9)))
def test_a_compare_budget_and_a_run_deadline_take_the_same_range(value: float) -> None:
    accepted = math.isfinite(value) and 0 < value <= MAX_SECONDS
    assert (_parsed([*ARGV["compare"], f"--budget={value!r}"]) is not None) is accepted
    assert (_parsed([*ARGV["run"], f"--max-time={value!r}"]) is not None) is accepted


@settings(max_examples=60, deadline=None)
@given(value=st.text(min_size=1, max_size=10))
def test_a_records_channel_is_one_of_the_catalog_channels(value: str) -> None:
    parsed = _parsed(["records", "--channel", value])
    assert (parsed is not None) is (value.lower() in get_args(Channel))


@pytest.mark.parametrize("value", ["0", "1023", str((1 << 30) + 1), "16MiB"])
@pytest.mark.parametrize("command", ["run", "compare"])
def test_a_frame_limit_out_of_range_is_a_usage_error(command: str, value: str, tmp_path: Path) -> None:
    _usage_error(*ARGV[command], "--out", str(tmp_path), f"--max-frame={value}", says="--max-frame")


def test_a_frame_limit_reaches_the_suite_and_the_rerun_line_only_when_it_is_not_the_default() -> None:
    parsed = PARSER.parse_args([*ARGV["run"], "--max-frame", "65536"])
    assert parsed.max_frame == 65536
    options = RunOptions(target=NOWHERE, profile="dev", seed=1, out=Path("out"), max_frame=parsed.max_frame)
    assert options.command()[-2:] == ["--max-frame", "65536"]
    assert "--max-frame" not in RunOptions(target=NOWHERE, profile="dev", seed=1, out=Path("out")).command()
