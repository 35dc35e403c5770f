"""`run`: the suite against one target, the evidence report written, the gate's verdict as exit status."""

from __future__ import annotations

import argparse
import os
import secrets
from pathlib import Path
from typing import TextIO

from conformance.catalog.selection import names, select_records
from conformance.cli.arguments import (
    PROG,
    UsageError,
    add_env,
    add_max_frame,
    cache_folder,
    env_of,
    eras,
    jobs,
    positive_seconds,
    seed,
    shard,
    target_spec,
)
from conformance.gate import exit_status
from conformance.gate.run_options import CALL_TIMEOUT, SUITE, RunOptions
from conformance.report.escape import safe, write_line
from conformance.suite.profiles import PROFILES, Profile, default_profile
from conformance.targets.kinds import notes, syntaxes
from conformance.targets.specs import with_env

NAME = "run"
HELP = "run the suite against a target and write the evidence report"
DESCRIPTION = (
    "Run the suite against a target; write report.json, report.md, report.html, junit.xml and transcripts/ "
    "into --out. Exit 0 when the observed departures are exactly the baseline's, 1 when not, 2 when the "
    "target cannot be used, 4 on a usage error, 143/130 on SIGTERM/SIGINT, 124 at the --max-time deadline. "
    "With --shard I/N, run one part of the run and exit 0 once it ran (its report leaves the gate to "
    "--merge); --merge DIR... joins all N shard reports into the run's report (exit 0/1/2 as a run, 4 when "
    "the folders are not one run's shards)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target",
        default=None,
        type=target_spec,
        help=f"the server to check: {' | '.join(syntaxes())}, after optional KEY=VALUE environment "
        f"variables (default: reference); {'; '.join(notes())}",
    )
    add_env(parser)
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="YAML of the records this target is expected to depart from",
    )
    parser.add_argument(
        "--era",
        type=eras,
        default="default",
        help="the clients the MCP specification's records (kind spec) are judged with: default (auto, the "
        "newest revision the target accepts), all, or some of "
        "2024-11-05,2025-03-26,2025-06-18,2025-11-25,2026-07-28,auto (each driven as its client connects)",
    )
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="examples per property: dev, ci or thorough (default: ci under CI, else dev)",
    )
    parser.add_argument(
        "--seed",
        type=seed,
        default=None,
        help="hypothesis seed, 0 to 2**32-1 (default: a random one, recorded in the report)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("reports/latest"),
        metavar="DIR",
        help="report directory (default: reports/latest)",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=jobs,
        default=1,
        metavar="N",
        help="parallel pytest-xdist workers, each with its own server processes (at most 4 per core)",
    )
    parser.add_argument(
        "--target-cache",
        type=cache_folder,
        default=None,
        metavar="DIR",
        help="where npm targets are installed (default: $SEQTHINK_CONFORMANCE_CACHE or the user cache)",
    )
    parser.add_argument(
        "--call-timeout",
        type=positive_seconds,
        default=CALL_TIMEOUT,
        metavar="S",
        help="seconds a server may take to answer one request (default: 10)",
    )
    parser.add_argument(
        "--against",
        type=target_spec,
        default=None,
        metavar="TARGET",
        help="also compare the target with this one on the same calls (report.json: comparison)",
    )
    parser.add_argument(
        "--max-time",
        type=positive_seconds,
        default=None,
        metavar="S",
        help="stop the run after S seconds, as SIGTERM would: a report saying \"deadline\", unfinished "
        "records not run, exit status 124",
    )
    add_max_frame(parser)
    parser.add_argument(
        "--arguments-map",
        default=None,
        metavar="FILE|SPELLING",
        help="send the original's argument names as the target spells them, in every call: a JSON or YAML "
        'file {"arguments": {"thoughtNumber": "thought_number", ...}}, or a spelling: snake_case, '
        "kebab-case, PascalCase, lowercase, UPPERCASE; the report says so (docs/running.md)",
    )
    parser.add_argument("--suite", default=SUITE, help=argparse.SUPPRESS)
    add_selection(parser)
    add_strict_baseline(parser)
    add_example_db(parser)
    add_shard_arguments(parser)


def add_shard_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--shard",
        type=shard,
        default=None,
        metavar="I/N",
        help="run shard I of N: every Nth test of the run, from the I-th (the same examples as in one run of "
        "the same --seed); its report is a part for --merge, and it exits 0 once it ran (docs/sharding.md)",
    )
    parser.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        default=None,
        metavar="DIR",
        help="join the report folders of all N shards of one run into its report in --out, with the verdicts "
        "and gate of one run of the same seed; starts nothing (--baseline for the gate; --target, --profile, "
        "--seed, when given, must be the shards')",
    )


def add_strict_baseline(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--strict-baseline",
        action="store_true",
        help="fail the gate on a baseline entry whose reason still says TODO (as `baseline -o` writes it)",
    )


def add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="RECORD|KIND",
        help="judge only these records: record IDs, aliases or kinds (repeatable, or comma-separated); "
        "the others are `not run` and the report lists them",
    )
    parser.add_argument(
        "--deselect",
        action="append",
        default=[],
        metavar="RECORD|KIND",
        help="leave out these records or kinds (repeatable, or comma-separated)",
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help="list the records the run would judge (after --select/--deselect) and exit, starting nothing",
    )


def add_example_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--example-db",
        type=example_folder,
        default=None,
        metavar="DIR",
        help="keep hypothesis' example database in DIR (its own folder): counterexamples a run finds are "
        "saved there and replayed first by every later run given the same DIR (off by default)",
    )


EXAMPLE_DB_ENTRIES = 100_000
"""Entries of an example database looked at before it is refused as too large to check."""


def example_folder(text: str) -> Path:
    """A folder hypothesis will write into: refused when it, a folder on the way to it as given, or anything
    in it is a symlink (a committed `db -> ~/.ssh` would be written through) or not a plain file or folder."""
    path = Path(text)
    parts = path.parts
    steps = [path] if path.is_absolute() else [Path(*parts[:depth]) for depth in range(1, len(parts) + 1)]
    for step in steps:
        if step.is_symlink():
            where = f"{text!r} is" if step == path else f"{text!r}: {str(step)!r} is"
            raise argparse.ArgumentTypeError(
                f"{where} a symlink; the example database is written to, and the harness never writes "
                "through a link"
            )
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    if path.is_dir():
        seen = 0
        for folder, dirs, files in os.walk(path):
            for name in sorted(dirs + files):
                seen += 1
                entry = Path(folder) / name
                if entry.is_symlink() or not (entry.is_dir() or entry.is_file()):
                    what = "a symlink" if entry.is_symlink() else "not a plain file or folder"
                    raise argparse.ArgumentTypeError(
                        f"{text!r} holds {str(entry.relative_to(path))!r}, {what}: the example database is "
                        "written to, and the harness never writes through a link"
                    )
            if seen > EXAMPLE_DB_ENTRIES:
                raise argparse.ArgumentTypeError(f"{text!r} holds more than {EXAMPLE_DB_ENTRIES:,} entries")
    return path


def seed_said(options: RunOptions) -> str:
    if options.example_db is None:
        return f"seed {options.seed}"
    return f"examples saved in {safe(str(options.example_db))} first, then hypothesis' own (no fixed seed)"


def list_selection(select: tuple[str, ...], deselect: tuple[str, ...], out: TextIO) -> int:
    """`run --list`: the records a run with this selection judges, from the catalog alone."""
    from conformance.catalog.view import load_catalog_view

    catalog = load_catalog_view()
    selection = select_records(catalog.records, catalog.canonical, select, deselect)
    chosen = set(selection.selected)
    rows = [r for r in catalog.records if r.id in chosen]
    width = max(len(r.id) for r in rows)
    for r in rows:
        how = "observable" if r.observable else "not observable"
        write_line(f"{r.id:<{width}}  {r.kind:<10} {how:<14}  {safe(r.statement, 90)}", out)
    observable = sum(r.observable for r in rows)
    write_line(f"{len(rows)} of {len(catalog.records)} records selected ({observable} observable, judged by "
               f"the run); {len(selection.not_selected)} not selected", out)
    return exit_status.OK


def _arguments_map(value: str | None) -> str | None:
    """`--arguments-map` checked before the run starts (a file that is not a mapping is refused, exit 4), a
    file's path made absolute for the suite and the report's rerun line."""
    from conformance.core.arguments_map import renames_of
    from conformance.core.spellings import OTHER_SPELLINGS

    if value is None or value in OTHER_SPELLINGS:
        return value
    renames_of(value)
    return str(Path(value).resolve())


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.merge is not None:
        return _merge(args, out, err)
    from conformance.cli.runner import run  # pytest, hypothesis, mcp: only for `run`
    from conformance.cli.runner.reporting import checked_baseline
    from conformance.report.terminal import write_summary
    from conformance.report.text import next_steps, step_line

    if args.shard is not None and args.against is not None:
        raise UsageError("--against cannot be split into shards: compare in a run of its own")
    if args.shard is not None and args.example_db is not None:
        raise UsageError("--shard needs one fixed seed for every shard: --example-db has none")
    if args.example_db is not None and args.seed is not None:
        raise UsageError("--seed and --example-db exclude each other: hypothesis uses no example database "
                         "under a fixed seed")
    select, deselect = names(args.select), names(args.deselect)
    if args.list:
        return list_selection(select, deselect, out)
    profile: Profile = args.profile or default_profile()
    seed: int = args.seed if args.seed is not None else secrets.randbelow(2**32)
    target: str = args.target or "reference"
    options = RunOptions(
        target=with_env(target, env_of(args.env)) if args.env else target,
        profile=profile,
        seed=seed,
        out=args.out,
        baseline=args.baseline,
        jobs=args.jobs,
        cache=args.target_cache,
        timeout=args.call_timeout,
        suite=args.suite,
        against=args.against,
        max_time=args.max_time,
        max_frame=args.max_frame,
        select=select,
        deselect=deselect,
        strict_baseline=args.strict_baseline,
        example_db=args.example_db,
        shard=args.shard,
        era=args.era,
        arguments_map=_arguments_map(args.arguments_map),
    )
    checked_baseline(options)  # a baseline that cannot be used is refused before the run says it started
    write_line(
        f"conformance run: target {safe(options.target)}, profile {profile}, {seed_said(options)}"
        f"{f', shard {options.shard}' if options.shard else ''}"
        f"{f', {options.jobs} workers' if options.jobs > 1 else ''}, eras {options.era}",
        out,
    )
    outcome = run(options, out)
    if outcome.report is not None:
        write_summary(outcome.report, out)
        write_line(
            f"report: {safe(str(options.out))}/report.html (also report.json, report.md, junit.xml)", out
        )
        for step in next_steps(outcome.report, str(options.out)):
            write_line(f"next: {safe(step_line(step), 1000)}", out)
    if outcome.message is not None:
        write_line(f"{PROG}: error: {safe(outcome.message, 2000)}", err)
    return outcome.exit_code


def _merge(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """`run --merge DIR...`: the shards' reports joined (cli/runner/shards.py); nothing is run."""
    from conformance.cli.runner.shards import Expected, merge
    from conformance.report.terminal import write_summary
    from conformance.report.text import next_steps, step_line

    for given, name in ((args.shard, "--shard"), (args.against, "--against"), (args.max_time, "--max-time")):
        if given is not None:
            raise UsageError(f"{name} has nothing to do with --merge, which runs nothing")
    if args.jobs > 1:
        raise UsageError("--jobs has nothing to do with --merge, which runs nothing")
    for given, name in ((args.select or args.deselect, "--select/--deselect"), (args.list, "--list"),
                        (args.example_db, "--example-db"), (args.strict_baseline, "--strict-baseline")):
        if given:
            raise UsageError(f"{name} is not taken by --merge: the shards' own selection and examples are "
                             "merged")
    if args.env and not args.target:
        raise UsageError("--env names part of a --target: give both, or neither, with --merge")
    target = with_env(args.target, env_of(args.env)) if args.target and args.env else args.target
    expected = Expected(target=target, profile=args.profile, seed=args.seed)
    code, report, message = merge(args.merge, args.out, args.baseline, expected, out)
    write_summary(report, out)
    write_line(f"report: {safe(str(args.out))}/report.html (also report.json, report.md, junit.xml)", out)
    for step in next_steps(report, str(args.out)):
        write_line(f"next: {safe(step_line(step), 1000)}", out)
    if message is not None:
        write_line(f"{PROG}: error: {safe(message, 2000)}", err)
    return code
