"""`run`: the suite against one target, the evidence report written, the gate's verdict as exit status."""

from __future__ import annotations

import argparse
import secrets
from pathlib import Path
from typing import TextIO

from conformance.cli.arguments import PROG, add_env, env_of, positive, positive_seconds, seed, target_spec
from conformance.gate.run_options import CALL_TIMEOUT, SUITE, RunOptions
from conformance.report.escape import safe, write_line
from conformance.report.model import VERDICTS, Report
from conformance.report.text import VERDICT_MARK, around_difference, gate_sentence, paired_answers, run_causes
from conformance.suite.profiles import PROFILES, Profile, default_profile
from conformance.targets.kinds import notes, syntaxes
from conformance.targets.specs import with_env

NAME = "run"
HELP = "run the suite against a target and write the evidence report"
DESCRIPTION = (
    "Run the suite against a target; write report.json, report.md, report.html, junit.xml and transcripts/ "
    "into --out. Exit 0 when the observed departures are exactly the baseline's, 1 when not, 2 when the "
    "target cannot be used."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target",
        default="reference",
        type=target_spec,
        help=f"[KEY=VALUE ...] {' | '.join(syntaxes())} (default: reference); {'; '.join(notes())}",
    )
    add_env(parser)
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="YAML of the records this target is expected to depart from",
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
        help="hypothesis seed (default: a random one, recorded in the report)",
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
        type=positive,
        default=1,
        metavar="N",
        help="parallel pytest-xdist workers, each with its own server processes",
    )
    parser.add_argument(
        "--target-cache",
        type=Path,
        default=None,
        metavar="DIR",
        help="where npm targets are installed (default: $SEQTHINK_CONFORMANCE_CACHE or the user cache)",
    )
    parser.add_argument(
        "--call-timeout",
        type=float,
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
    parser.add_argument("--suite", default=SUITE, help=argparse.SUPPRESS)


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from conformance.cli.runner import run  # pytest, hypothesis, mcp: only for `run`

    profile: Profile = args.profile or default_profile()
    seed: int = args.seed if args.seed is not None else secrets.randbelow(2**32)
    options = RunOptions(
        target=with_env(args.target, env_of(args.env)) if args.env else args.target,
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
    )
    write_line(
        f"conformance run: target {safe(options.target)}, profile {profile}, seed {seed}"
        f"{f', {options.jobs} workers' if options.jobs > 1 else ''}",
        out,
    )
    outcome = run(options, out)
    if outcome.report is not None:
        _print_summary(outcome.report, out)
        write_line(
            f"report: {safe(str(options.out))}/report.html (also report.json, report.md, junit.xml)", out
        )
    if outcome.message is not None:
        write_line(f"{PROG}: error: {safe(outcome.message, 2000)}", err)
    return outcome.exit_code


def _print_summary(report: Report, out: TextIO) -> None:
    counts = report.summary.counts
    write_line("", out)
    for verdict in VERDICTS:
        write_line(f"  {VERDICT_MARK[verdict]} {verdict:<15} {counts.get(verdict, 0):>4}", out)
    s = report.summary
    write_line(
        f"  {s.records} records, {s.moved_to_observed} moved from implemented to observed, "
        f"{s.examples} examples, {report.run.duration_s:.1f} s",
        out,
    )
    causes = run_causes(report)
    if causes:
        write_line("", out)
        write_line(f"  root causes ({len(causes)}):", out)
        for cause in causes:
            write_line(f"  ▶ {safe(cause.summary, 160)}", out)
            if cause.explains:
                explains = safe(", ".join(cause.explains), 200)
                write_line(f"      explains {len(cause.explains)}: {explains}", out)
    departures = [rv for rv in report.records if rv.verdict in ("deviates", "error")]
    if departures:
        write_line("", out)
        width = max(len(rv.id) for rv in departures)
        for rv in departures:
            because = f"  (explained by {safe(rv.explained_by)})" if rv.explained_by else ""
            line = f"  {rv.verdict:<8} {safe(rv.id):<{width}}  {safe(rv.reason, 100)}{because}"
            write_line(line, out)
    for entry in report.gate.changed:
        write_line("", out)
        write_line(f"  departure changed: {safe(entry.record)} ({safe(entry.reason, 100)})", out)
        for step, before, after in paired_answers(entry.before, entry.after):
            shown_before, shown_after = around_difference(before, after, 160)
            write_line(f"    {safe(step)}", out)
            write_line(f"      before: {safe(shown_before, 160)}", out)
            write_line(f"      after:  {safe(shown_after, 160)}", out)
    write_line("", out)
    write_line(safe(gate_sentence(report.gate), 1000), out)
