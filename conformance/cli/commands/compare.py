"""`compare A [B]`: two targets on the same calls; the differences, grouped under their root causes.

Exit status: 0 no difference (or every one accepted by `--baseline`), 1 a difference not accepted, 2 a
target cannot be used (one line saying why), 4 a wrong option or input file, or an --out it may not
write, 143 / 130 stopped by SIGTERM / SIGINT (the report says so). The report is written into a staging
folder that replaces --out when done.
"""

from __future__ import annotations

import argparse
import datetime as dt
import secrets
import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from conformance.cli.arguments import (
    UsageError,
    add_max_frame,
    cache_folder,
    env_pair,
    positive_seconds,
    seed,
    target_spec,
)
from conformance.drivers import cancel, process
from conformance.gate import exit_status
from conformance.gate.run_options import CALL_TIMEOUT
from conformance.report.escape import cut_headline, safe, write_line
from conformance.suite.profiles import default_profile
from conformance.targets.kinds import syntaxes, unresolved_identity
from conformance.targets.kinds.npm import KIND as NPM
from conformance.targets.specs import folder_name, parse_env_pair, with_env

if TYPE_CHECKING:
    from conformance.compare import ComparisonOutcome
    from conformance.gate.comparison import CompareBaseline
    from conformance.report.model import Report

NAME = "compare"
HELP = "run two targets side by side on the same calls and report every behaviour difference"
DESCRIPTION = (
    "Drive two targets in lock-step (fresh-process checks, fixed witnesses, generated call programs), shrink "
    "each difference to its smallest program, confirm it on fresh processes, attribute it to records and "
    "group it under a root cause. Exit 0 without differences, 1 with a difference the baseline does not "
    "accept, 2 when a target cannot be used, 4 on a usage error, 143/130 on SIGTERM/SIGINT."
)
DEFAULT_B = "reference"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", type=target_spec, metavar="A", help=" | ".join(syntaxes(short=True)))
    p.add_argument("b", type=target_spec, metavar="B", nargs="?", default=DEFAULT_B,
                   help=f"the target to compare with (default: {DEFAULT_B})")
    p.add_argument("--profile", choices=("dev", "ci", "thorough"), default=None,
                   help="search size: dev, ci or thorough (default: ci under CI, else dev)")
    p.add_argument("--seed", type=seed, default=None,
                   help="hypothesis seed, 0 to 2**32-1 (default: random, recorded)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="report directory (default: reports/compare-<a>-vs-<b>)")
    p.add_argument("--baseline", type=Path, default=None, metavar="FILE",
                   help="a seqthink-compare-baseline/1 file: the difference ids that are expected")
    p.add_argument("--write-baseline", type=Path, default=None, metavar="FILE",
                   help="write a compare baseline accepting every difference found (reasons to fill in)")
    p.add_argument("--call-timeout", type=positive_seconds, default=CALL_TIMEOUT, metavar="S",
                   help="seconds a server may take to answer one request (default: 10)")
    p.add_argument("--budget", type=positive_seconds, default=None, metavar="S",
                   help="seconds the search may take (default: the profile's)")
    p.add_argument("--env", action="append", type=env_pair, default=None, metavar="KEY=VALUE",
                   help="start both targets with this environment variable (repeatable; in their identity)")
    p.add_argument("--target-cache", type=cache_folder, default=None, metavar="DIR",
                   help="where npm targets are installed")
    p.add_argument("--cross", action="store_true",
                   help="two npm: targets: install A's package with B's dependency tree and replay each "
                   "difference on it, to say whether it comes from the server's code or its dependencies "
                   "(off by default: one more install and three processes per difference)")
    p.add_argument("--no-call-other-tools", dest="call_other_tools", action="store_false", default=True,
                   help="call none of the tools only one side lists (by default each is called, each call on "
                   "a process of its own started in a folder and HOME made for it; the report says what "
                   "each did)")
    p.add_argument("--call-other-tools", dest="call_other_tools", action="store_true",
                   help="accepted for older command lines: other tools are called by default")
    add_max_frame(p)
    p.add_argument("--arguments-map", default=None, metavar="FILE|SPELLING",
                   help="send B's calls with the original's argument names as B spells them, as run's "
                   "--arguments-map does (a JSON or YAML file, or a spelling: snake_case, kebab-case, "
                   "PascalCase, lowercase, UPPERCASE); the report says so. Without "
                   "it a side refusing the original's call for its names stops the comparison, as a run")
    add_label_arguments(p)


def add_label_arguments(p: argparse.ArgumentParser) -> None:
    """How the report names each side everywhere but its identity table."""
    p.add_argument("--label-a", default=None, metavar="NAME",
                   help="what the report calls A (default: the version of an npm: target, the shortest "
                   "path part telling two cmd: targets apart, e.g. base)")
    p.add_argument("--label-b", default=None, metavar="NAME",
                   help="what the report calls B (default: as for A, e.g. head)")


_KEEP = "its reasons would be lost; choose another path, or remove it"


def default_out(a: str, b: str) -> Path:
    return Path("reports") / f"compare-{folder_name(a)}-vs-{folder_name(b)}"


def rerun_command(args: argparse.Namespace, profile: str, seed: int) -> str:
    parts = ["python", "-m", "conformance", "compare", args.a, args.b]
    parts += ["--profile", profile, "--seed", str(seed)]
    if args.baseline is not None:
        parts += ["--baseline", str(args.baseline)]
    if args.cross:
        parts.append("--cross")
    if not getattr(args, "call_other_tools", True):
        parts.append("--no-call-other-tools")
    if getattr(args, "arguments_map", None):
        parts += ["--arguments-map", args.arguments_map]
    for option, value in (("--label-a", args.label_a), ("--label-b", args.label_b)):
        if value:
            parts += [option, value]
    return shlex.join(parts)


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from conformance.cli.commands.run import _arguments_map as checked_map
    from conformance.compare.crossing import NEEDS_NPM
    from conformance.core.outfolder import claimed, write_file
    from conformance.drivers.wire import set_max_frame
    from conformance.gate.comparison import dump_compare_baseline, load_compare_baseline

    set_max_frame(args.max_frame)
    args.arguments_map = checked_map(getattr(args, "arguments_map", None))  # a bad file: refused before
    if args.cross and not (NPM.matches(args.a) and NPM.matches(args.b)):
        raise UsageError(NEEDS_NPM)
    if args.env:
        env = dict(parse_env_pair(pair) for pair in args.env)
        args.a, args.b = with_env(args.a, env), with_env(args.b, env)
    profile = args.profile or default_profile()
    seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
    baseline = load_compare_baseline(args.baseline) if args.baseline is not None else None
    if args.write_baseline is not None and (args.write_baseline.exists() or args.write_baseline.is_symlink()):
        raise UsageError(f"--write-baseline {args.write_baseline} exists and is not replaced: {_KEEP}")
    out_dir: Path = args.out if args.out is not None else default_out(args.a, args.b)
    write_line(f"conformance compare: {safe(args.a)} vs {safe(args.b)}, profile {profile}, seed {seed}", out)
    with claimed(out_dir, NAME) as folder:
        with cancel.handling():
            report, outcome = _compare(args, profile, seed, baseline, folder.staging, out)
        folder.commit()
    stop = cancel.requested()
    if outcome is None and stop is not None:
        write_line(f"compare stopped: {safe(stop.reason)}; report {safe(str(out_dir))}/report.html", out)
        return stop.exit_code
    assert outcome is not None
    print_comparison(report, outcome, baseline, out)
    if args.write_baseline is not None:
        assert report.comparison is not None
        write_file(args.write_baseline, dump_compare_baseline(report.comparison), replace=False, hint=_KEEP)
        write_line(f"wrote a compare baseline to {safe(str(args.write_baseline))}", out)
    write_line(f"report: {safe(str(out_dir))}/report.html (also report.json, report.md, junit.xml)", out)
    return exit_status.OK if report.gate.passed else exit_status.GATE_FAILED


def _compare(args: argparse.Namespace, profile: str, seed: int, baseline: CompareBaseline | None,
             staging: Path, out: TextIO) -> tuple[Report, ComparisonOutcome | None]:
    """The comparison and its report, written into the staging folder of --out; a SIGTERM/SIGINT stops it
    with a report saying so (no outcome)."""
    from conformance.compare import ComparisonOutcome, run_comparison
    from conformance.report.model import Comparison
    from conformance.report.write import write_report

    started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    t0 = time.monotonic()
    transcripts = staging / "transcripts"

    def say(line: str) -> None:
        write_line(f"  [{time.monotonic() - t0:5.1f} s] {safe(line, 200)}", out)

    try:
        outcome = run_comparison(args.a, args.b, profile=profile, seed=seed, cache=args.target_cache,
                                 call_timeout=args.call_timeout, budget_s=args.budget,
                                 transcripts=transcripts, progress=say,
                                 labels=(args.label_a, args.label_b), cross=args.cross,
                                 arguments_map=args.arguments_map,
                                 call_other_tools=getattr(args, "call_other_tools", True))
    except cancel.Cancelled as stopped:
        cut = ComparisonOutcome(
            Comparison(a=unresolved_identity(args.a), b=unresolved_identity(args.b), calls=0, programs=0),
            [], seed, profile, round(time.monotonic() - t0, 3),
        )
        report = _report(cut, args, baseline, started, profile, seed)
        report = report.model_copy(update={
            "run": report.run.model_copy(update={"interrupted": stopped.stop.reason}),
            "gate": report.gate.model_copy(update={"passed": False}),
        })
        write_report(report, staging)
        return report, None
    report = _report(outcome, args, baseline, started, profile, seed)
    write_report(report, staging)
    return report, outcome


def _report(outcome: ComparisonOutcome, args: argparse.Namespace, baseline: CompareBaseline | None,
            started: str, profile: str, seed: int) -> Report:
    from conformance.gate.comparison import comparison_report

    return comparison_report(outcome, baseline=baseline,
                             baseline_path=str(args.baseline) if args.baseline else None,
                             started=started, rerun=rerun_command(args, profile, seed),
                             processes_started=process.processes_started())

TERMINAL_LINE = 199
"""A cause's first line in the terminal stays under 200 characters, its headline cut at clause boundaries."""


def print_comparison(
    report: Report, outcome: ComparisonOutcome, baseline: CompareBaseline | None, out: TextIO
) -> None:
    from conformance.gate.comparison import not_seen
    from conformance.report.text import era_lines, other_tool_lines, where_run_looks

    comparison = report.comparison
    assert comparison is not None
    differences = {d.id: d for d in comparison.differences}
    write_line("", out)
    if comparison.eras:
        write_line("revision settled on, per era's client:", out)
        for line in era_lines(comparison):
            write_line(f"  {safe(line, 200)}", out)
        if where_run_looks(comparison):
            write_line(f"  {where_run_looks(comparison)}", out)
        write_line("", out)
    if comparison.other_tools:
        write_line("tools only one side lists:", out)
        for line in other_tool_lines(comparison):
            write_line(f"  {safe(line, 200)}", out)
        write_line("", out)
    for cause in report.root_causes:
        records = ", ".join(cause.records or cause.explains)
        lead = f"root cause {safe(cause.id)} [{records}]: "
        write_line(lead + cut_headline(safe(cause.summary), TERMINAL_LINE - len(lead)), out)
        for difference_id in cause.differences:
            d = differences[difference_id]
            mark = "accepted" if d.accepted else "new" if baseline is not None else "differs"
            write_line(f"  {mark:<8} {safe(d.summary, 160)}", out)
            write_line(f"           id {safe(d.id)}; records {', '.join(d.records) or '—'}", out)
    if outcome.unconfirmed:
        write_line(f"  {len(outcome.unconfirmed)} difference(s) seen on the long-lived processes did not "
                   "show again on fresh ones and were dropped", out)
    for missing in not_seen(comparison, baseline):
        write_line(f"  not seen this time (accepted by the baseline): {safe(missing)}", out)
    write_line("", out)
    new = [d for d in comparison.differences if not d.accepted]
    budget = " (search budget reached)" if comparison.budget_reached else ""
    write_line(
        f"{len(comparison.differences)} difference(s) in {len(report.root_causes)} root cause(s), "
        f"{len(new)} not accepted; {comparison.programs} programs, {comparison.calls} calls per side, "
        f"{outcome.duration_s:.1f} s{budget}",
        out,
    )
