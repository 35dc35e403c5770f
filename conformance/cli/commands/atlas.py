"""`atlas`: every release (or the targets given) run, adjacent ones compared, the drift atlas written."""

from __future__ import annotations

import argparse
import secrets
from pathlib import Path
from typing import TextIO

from conformance.cli.arguments import (
    PROG,
    add_env,
    cache_folder,
    env_of,
    jobs,
    positive_seconds,
    seed,
    target_spec,
)
from conformance.core.errors import InputError
from conformance.drivers import cancel
from conformance.gate import exit_status
from conformance.gate.run_options import CALL_TIMEOUT
from conformance.report.escape import safe, write_line
from conformance.suite.profiles import PROFILES, default_profile

NAME = "atlas"
HELP = "run every release (or the given targets), compare adjacent ones, write the drift atlas"
DESCRIPTION = (
    "Run each target (default: every published release, plus a column per environment switch its README "
    "documents), compare each adjacent pair, and write atlas.json, atlas.md and index.html into --out. "
    "`--merge DIR ...` joins the outputs of one-target atlas runs instead, as data: it starts nothing a "
    "merged file names but published releases (npm:VERSION) and the TARGETs given, whose adjacent pairs "
    "it compares. Exit 0 when written, 2 when a target cannot be used, 4 when the command is misused, a "
    "merged file is not valid or --out holds what the harness did not write, 143/130 on SIGTERM/SIGINT "
    "(the runs in flight are stopped)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("targets", nargs="*", type=target_spec, metavar="TARGET",
                        help="the targets to run, in order (default: every published npm release)")
    add_env(parser)
    parser.add_argument(
        "--profile", choices=PROFILES, default=None, help="as for run (default: dev, ci under CI)"
    )
    parser.add_argument("--seed", type=seed, default=None, help="one hypothesis seed for every run")
    parser.add_argument(
        "--jobs", "-j", type=jobs, default=1, metavar="N", help="targets run at once (at most 4 per core)"
    )
    parser.add_argument("--out", type=Path, default=Path("reports/atlas"), metavar="DIR",
                        help="atlas directory (default: reports/atlas)")
    parser.add_argument("--no-compare", action="store_true", help="skip the comparisons of adjacent pairs")
    parser.add_argument(
        "--no-compare-switches",
        action="store_true",
        help="compare consecutive releases only (a switch column still shows its verdict and served changes)",
    )
    parser.add_argument(
        "--no-cross",
        action="store_true",
        help="compare consecutive npm releases without --cross (no install of a release on its successor's "
        "tree; differences are not told apart as code or dependencies)",
    )
    parser.add_argument(
        "--no-switches", action="store_true", help="no extra columns for documented environment switches"
    )
    parser.add_argument(
        "--merge", nargs="+", type=Path, default=None, metavar="DIR", help="merge these atlas outputs"
    )
    parser.add_argument("--target-cache", type=cache_folder, default=None, metavar="DIR",
                        help="where npm targets are installed (default: $SEQTHINK_CONFORMANCE_CACHE or the "
                        "user cache)")
    parser.add_argument("--call-timeout", type=positive_seconds, default=CALL_TIMEOUT, metavar="S",
                        help="seconds a server may take to answer one request (default: 10)")
    parser.add_argument("--suite", default=None, help=argparse.SUPPRESS)


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from conformance.atlas.build import AtlasOptions, build_atlas, merge_atlases

    say = lambda msg: write_line(safe(msg, 300), out)  # noqa: E731
    if args.merge is not None and args.env:
        raise InputError(
            "--env is not taken by atlas --merge: a merge runs no target, it joins what the parts ran (run "
            "each part's atlas with --env instead)"
        )
    if args.merge is not None:
        with cancel.handling():
            atlas = merge_atlases(
                args.merge,
                args.out,
                compare=not args.no_compare,
                cache=args.target_cache,
                timeout=args.call_timeout,
                progress=say,
                profile=args.profile,
                seed=args.seed,
                jobs=args.jobs,
                compare_switches=not args.no_compare_switches,
                trusted=args.targets,
                cross=not args.no_cross,
            )
    else:
        options = AtlasOptions(
            targets=tuple(args.targets),
            env=env_of(args.env),
            profile=args.profile or default_profile(),
            seed=args.seed if args.seed is not None else secrets.randbelow(2**32),
            jobs=args.jobs,
            out=args.out,
            compare=not args.no_compare,
            compare_switches=not args.no_compare_switches,
            cross=not args.no_cross,
            switches=not args.no_switches,
            cache=args.target_cache,
            timeout=args.call_timeout,
            suite=args.suite,
        )
        with cancel.handling():
            atlas = build_atlas(options, progress=say)
    if atlas.interrupted is not None:
        where = safe(str(args.out))
        write_line(f"atlas stopped: {safe(atlas.interrupted)}; {where}/atlas.md says what ran", out)
        stop = cancel.requested()
        return stop.exit_code if stop is not None else exit_status.INTERRUPTED
    changed = sum(1 for pair in atlas.pairs if pair.verdict_changes or pair.root_causes)
    write_line(
        f"atlas: {len(atlas.columns)} columns, {len(atlas.pairs)} pairs ({changed} with changes); "
        f"{safe(str(args.out))}/index.html (also atlas.json, atlas.md)",
        out,
    )
    unusable = [c.spec for c in atlas.columns if c.exit_code == exit_status.UNUSABLE]
    if unusable:
        write_line(f"{PROG}: error: unusable target(s): {safe(', '.join(unusable), 1000)}", err)
        return exit_status.UNUSABLE
    return exit_status.OK
