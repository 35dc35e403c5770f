"""The command line: `run` (the gate), `records` (the catalog), `diff` (drift between two reports),
`compare` (two targets side by side), `install` (fetch an npm target ahead of time), `baseline` (start
or refresh a baseline from a report), `atlas` (every release, run and compared).

Exit status: 0 the gate passed / nothing differs; 1 the gate failed / reports differ; 2 the target
cannot be used or the command is misused — always with one line on stderr saying why, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from conformance.catalog.view import load_catalog_view
from conformance.drivers.cancel import Cancelled
from conformance.drivers.errors import HarnessError
from conformance.gate import exit_status
from conformance.gate.baseline import Baseline, BaselineEntry, canonical_entries, dump_baseline, load_baseline
from conformance.report.escape import safe, write_line
from conformance.report.json import load_report
from conformance.report.model import VERDICTS, Report
from conformance.report.text import VERDICT_MARK, around_difference, gate_sentence, paired_answers, run_causes
from conformance.suite.profiles import PROFILES, Profile, default_profile
from conformance.targets.project import project_of
from conformance.targets.specs import parse_env_pair, resolve_target, split_env, with_env

PROG = "seqthink-conformance"


class UsageError(HarnessError):
    """The command line is wrong (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def _target_spec(text: str) -> str:
    env, base = split_env(text)
    if base == "reference" or base.startswith(("npm:", "cmd:")):
        return with_env(base, env) if env else text
    raise argparse.ArgumentTypeError(
        f"{text!r}: expected [KEY=VALUE ...] reference, npm:<version>[@today] or cmd:<command line>"
    )


def _env_pair(text: str) -> str:
    try:
        key, value = parse_env_pair(text)
    except HarnessError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return f"{key}={value}"


def _env_of(pairs: Sequence[str] | None) -> dict[str, str]:
    return dict(parse_env_pair(p) for p in pairs or [])


def _add_env(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--env",
        action="append",
        type=_env_pair,
        metavar="KEY=VALUE",
        help="start the target(s) with this environment variable (repeatable; recorded in the identity)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG, description="Conformance and claim-audit harness for the sequentialthinking MCP server."
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    run_p = commands.add_parser(
        "run",
        help="run the suite against a target and write the evidence report",
        description="Run the suite against a target; write report.json, report.md, "
        "report.html, junit.xml and transcripts/ into --out. Exit 0 when the "
        "observed departures are exactly the baseline's, 1 when not, 2 when "
        "the target cannot be used.",
    )
    run_p.add_argument(
        "--target",
        default="reference",
        type=_target_spec,
        help="[KEY=VALUE ...] reference | npm:<version>[@today] | cmd:<command line> (default: reference); "
        "npm:<version> installs the dependency tree as of its release, @today today's",
    )
    _add_env(run_p)
    run_p.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="YAML of the records this target is expected to depart from",
    )
    run_p.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="examples per property: dev, ci or thorough (default: ci under CI, else dev)",
    )
    run_p.add_argument(
        "--seed",
        type=_seed,
        default=None,
        help="hypothesis seed (default: a random one, recorded in the report)",
    )
    run_p.add_argument(
        "--out",
        type=Path,
        default=Path("reports/latest"),
        metavar="DIR",
        help="report directory (default: reports/latest)",
    )
    run_p.add_argument(
        "--jobs",
        "-j",
        type=_positive,
        default=1,
        metavar="N",
        help="parallel pytest-xdist workers, each with its own server processes",
    )
    run_p.add_argument(
        "--target-cache",
        type=Path,
        default=None,
        metavar="DIR",
        help="where npm targets are installed (default: $SEQTHINK_CONFORMANCE_CACHE or the user cache)",
    )
    run_p.add_argument(
        "--call-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds a server may take to answer one request (default: 10)",
    )
    run_p.add_argument(
        "--against",
        type=_target_spec,
        default=None,
        metavar="TARGET",
        help="also compare the target with this one on the same calls (report.json: comparison)",
    )
    run_p.add_argument(
        "--max-time",
        type=_positive_seconds,
        default=None,
        metavar="S",
        help="stop the run after S seconds, as SIGTERM would: a report saying \"deadline\", unfinished "
        "records not run, exit status 124",
    )
    run_p.add_argument("--suite", default="conformance.suite", help=argparse.SUPPRESS)

    rec_p = commands.add_parser(
        "records",
        help="list the records catalog",
        description="List the records catalog, filtered by kind and observability.",
    )
    rec_p.add_argument(
        "--kind",
        action="append",
        metavar="KIND",
        help="only records of this kind (repeatable), e.g. rte, abs, amendment, clm",
    )
    observable = rec_p.add_mutually_exclusive_group()
    observable.add_argument("--observable", action="store_true", help="only records observable from outside")
    observable.add_argument("--unobservable", action="store_true", help="only records that are not, with why")
    rec_p.add_argument(
        "--channel",
        action="append",
        metavar="CHANNEL",
        help="only records observable through this channel (wire, stderr, artifact, process)",
    )
    rec_p.add_argument("--json", action="store_true", help="JSON lines instead of a table")

    diff_p = commands.add_parser(
        "diff",
        help="records whose verdict differs between two reports",
        description="Records whose verdict differs between two report.json files, side "
        "by side. Exit 0 when none differ, 1 when some do.",
    )
    diff_p.add_argument("a", type=Path, metavar="A/report.json")
    diff_p.add_argument("b", type=Path, metavar="B/report.json")
    diff_p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    diff_p.add_argument("--all", action="store_true", help="list every record, not only those that differ")

    from conformance.cli.compare import add_parser as add_compare

    add_compare(commands, _target_spec)

    inst_p = commands.add_parser("install", help="install an npm target into the cache ahead of a run")
    inst_p.add_argument("target", type=_target_spec, metavar="TARGET")
    inst_p.add_argument("--target-cache", type=Path, default=None, metavar="DIR")

    base_p = commands.add_parser(
        "baseline",
        help="write a baseline from a report's departures, or refresh one",
        description="Write a baseline (format /2) listing every departure of a report with its "
        "behaviour signature; edit the reasons before committing it. With --refresh FILE, keep "
        "FILE's reasons, take the report's signatures, add and remove entries, and say what changed.",
    )
    base_p.add_argument("report", type=Path, metavar="REPORT.json")
    base_p.add_argument(
        "--output", "-o", type=Path, default=None, metavar="FILE", help="write here instead of stdout"
    )
    base_p.add_argument(
        "--project",
        default=None,
        metavar="NAME",
        help="the project it is for (default: the report's npm package or the fork's package.json name)",
    )
    base_p.add_argument(
        "--refresh",
        type=Path,
        default=None,
        metavar="FILE",
        help="update this baseline in place (or into --output) from the report",
    )
    _add_atlas_parser(commands)
    return parser


def _add_atlas_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    atlas_p = commands.add_parser(
        "atlas",
        help="run every release (or the given targets), compare adjacent ones, write the drift atlas",
        description="Run each target (default: every published release, plus a column per environment "
        "switch its README documents), compare each adjacent pair, and write atlas.json, atlas.md and "
        "index.html into --out. `--merge DIR ...` joins the outputs of one-target atlas runs instead. "
        "Exit 0 when written, 2 when a target cannot be used or the command is misused.",
    )
    atlas_p.add_argument("targets", nargs="*", type=_target_spec, metavar="TARGET")
    _add_env(atlas_p)
    atlas_p.add_argument(
        "--profile", choices=PROFILES, default=None, help="as for run (default: dev, ci under CI)"
    )
    atlas_p.add_argument("--seed", type=_seed, default=None, help="one hypothesis seed for every run")
    atlas_p.add_argument("--jobs", "-j", type=_positive, default=1, metavar="N", help="targets run at once")
    atlas_p.add_argument("--out", type=Path, default=Path("reports/atlas"), metavar="DIR")
    atlas_p.add_argument("--no-compare", action="store_true", help="skip the comparisons of adjacent pairs")
    atlas_p.add_argument(
        "--no-compare-switches",
        action="store_true",
        help="compare consecutive releases only (a switch column still shows its verdict and served changes)",
    )
    atlas_p.add_argument(
        "--no-switches", action="store_true", help="no extra columns for documented environment switches"
    )
    atlas_p.add_argument(
        "--merge", nargs="+", type=Path, default=None, metavar="DIR", help="merge these atlas outputs"
    )
    atlas_p.add_argument("--target-cache", type=Path, default=None, metavar="DIR")
    atlas_p.add_argument("--call-timeout", type=float, default=10.0, metavar="S")
    atlas_p.add_argument("--suite", default=None, help=argparse.SUPPRESS)


def main(
    argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    try:
        args = build_parser().parse_args(argv)
        handler = {
            "run": _run,
            "records": _records,
            "diff": _diff,
            "compare": _compare,
            "install": _install,
            "baseline": _baseline,
            "atlas": _atlas,
        }[args.command]
        return handler(args, out, err)
    except HarnessError as exc:
        write_line(f"{PROG}: error: {safe(str(exc), 2000)}", err)
        return exit_status.UNUSABLE
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        write_line(f"{PROG}: error: cannot use{safe(str(where))}: {safe(exc.strerror or str(exc))}", err)
        return exit_status.UNUSABLE
    except Cancelled as exc:
        write_line(f"{PROG}: {safe(exc.stop.reason)}", err)
        return exc.stop.exit_code
    except KeyboardInterrupt:
        write_line(f"{PROG}: interrupted", err)
        return exit_status.INTERRUPTED


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from conformance.cli.runner import (  # pytest, hypothesis, mcp: only for `run`
        RunOptions,
        rerun_command,
        run,
    )

    profile: Profile = args.profile or default_profile()
    seed: int = args.seed if args.seed is not None else secrets.randbelow(2**32)
    options = RunOptions(
        target=with_env(args.target, _env_of(args.env)) if args.env else args.target,
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
    options = RunOptions(**{**options.__dict__, "rerun": rerun_command(options)})
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


def _compare(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from conformance.cli.compare import compare_command  # hypothesis: only for `compare`

    return compare_command(args, out, err)


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
    not_run = [rv for rv in report.records if rv.verdict == "not run"]
    for reason in dict.fromkeys(rv.reason for rv in not_run):
        ids = ", ".join(rv.id for rv in not_run if rv.reason == reason)
        write_line(f"  not run  {safe(ids, 120)}: {safe(reason, 120)}", out)
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


def _records(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    catalog = load_catalog_view()
    kinds = {k.lower() for k in args.kind or []}
    channels = {c.lower() for c in args.channel or []}
    known_kinds = {r.kind.lower() for r in catalog.records}
    unknown = kinds - known_kinds
    if unknown:
        raise UsageError(
            f"unknown kind {', '.join(sorted(unknown))}; kinds are {', '.join(sorted(known_kinds))}"
        )
    rows = [
        r
        for r in catalog.records
        if (not kinds or r.kind.lower() in kinds)
        and (not args.observable or r.observable)
        and (not args.unobservable or not r.observable)
        and (not channels or channels & {c.lower() for c in r.channel_names()})
    ]
    if args.json:
        for r in rows:
            write_line(
                json.dumps(
                    {
                        "id": r.id,
                        "kind": r.kind,
                        "aliases": list(r.aliases),
                        "channels": r.channel_names(),
                        "observable": r.observable,
                        "unobservable_reason": r.unobservable_reason,
                        "statement": r.statement,
                        "evidence_before": r.evidence_before,
                        "anchors": r.anchor_texts(),
                    },
                    ensure_ascii=False,
                ),
                out,
            )
        return 0
    width = max((len(r.id) for r in rows), default=2)
    for r in rows:
        reason = (r.unobservable_reason or "?").split(":", 1)[0]
        how = ", ".join(r.channel_names()) if r.observable else f"none ({reason})"
        aliases = f"  [{', '.join(r.aliases)}]" if r.aliases else ""
        write_line(f"{r.id:<{width}}  {r.kind:<10} {how:<24} {safe(r.statement, 90)}{aliases}", out)
    write_line(f"{len(rows)} of {len(catalog.records)} records", out)
    return 0


def _diff(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    a, b = load_report(args.a), load_report(args.b)
    rows_a = {rv.id: rv for rv in a.records}
    rows_b = {rv.id: rv for rv in b.records}
    ids = list(dict.fromkeys([*rows_a, *rows_b]))
    missing = "absent"
    differing = [
        (
            rid,
            rows_a[rid].verdict if rid in rows_a else missing,
            rows_b[rid].verdict if rid in rows_b else missing,
        )
        for rid in ids
    ]
    changed = [row for row in differing if row[1] != row[2]]
    shown = differing if args.all else changed
    drift = difference_drift(a, b)
    drifted = [row for row in drift if row[1] != row[2]]
    failed = bool(changed or drifted)
    name_a, name_b = safe(a.target.spec, 40), safe(b.target.spec, 40)
    if name_a == name_b:
        name_a, name_b = safe(str(args.a), 40), safe(str(args.b), 40)
    if args.format == "json":
        write_line(
            json.dumps(
                {
                    "a": {"target": a.target.spec, "report": str(args.a)},
                    "b": {"target": b.target.spec, "report": str(args.b)},
                    "differences": [{"record": r, "a": va, "b": vb} for r, va, vb in changed],
                    "behaviour_differences": [
                        {"difference": d, "summary": s, "a": va, "b": vb} for d, va, vb, s in drifted
                    ],
                },
                ensure_ascii=False,
                indent=2,
            ),
            out,
        )
        return exit_status.GATE_FAILED if failed else exit_status.OK
    if args.format == "markdown":
        from conformance.report.markdown import md

        write_line(f"## Drift: {md(a.target.spec)} → {md(b.target.spec)}", out)
        write_line("", out)
        write_line(f"{len(changed)} of {len(ids)} records differ.", out)
        if shown:
            write_line("", out)
            write_line(f"| record | {md(a.target.spec)} | {md(b.target.spec)} |", out)
            write_line("|---|---|---|", out)
            for rid, va, vb in shown:
                write_line(f"| {md(rid)} | {va} | {vb} |", out)
        if drift:
            write_line("", out)
            write_line(f"{len(drifted)} of {len(drift)} behaviour differences (comparisons) differ.", out)
            rows = drift if args.all else drifted
            if rows:
                write_line("", out)
                write_line(f"| difference | {md(a.target.spec)} | {md(b.target.spec)} | summary |", out)
                write_line("|---|---|---|---|", out)
                for did, va, vb, summary in rows:
                    write_line(f"| {md(did)} | {va} | {vb} | {md(summary, 200)} |", out)
        return exit_status.GATE_FAILED if failed else exit_status.OK
    width = max((len(r) for r, _, _ in shown), default=6)
    col = max(len(name_a), 15)
    write_line(f"{'record':<{width}}  {name_a:<{col}}  {name_b}", out)
    for rid, va, vb in shown:
        mark = " " if va == vb else "*"
        write_line(f"{safe(rid):<{width}}  {va:<{col}}  {vb}  {mark}".rstrip(), out)
    write_line(f"{len(changed)} of {len(ids)} records differ between {name_a} and {name_b}", out)
    if drift:
        rows = drift if args.all else drifted
        for did, va, vb, summary in rows:
            mark = " " if va == vb else "*"
            write_line(f"  {mark} {safe(did)}: {va} → {vb}  ({safe(summary, 120)})", out)
        write_line(f"{len(drifted)} of {len(drift)} behaviour differences (comparisons) differ", out)
    return exit_status.GATE_FAILED if failed else exit_status.OK


def difference_drift(a: Report, b: Report) -> list[tuple[str, str, str, str]]:
    """(difference id, in A, in B, summary) over the comparisons both reports carry; [] unless both do.

    A difference reads `differs`, `accepted`, `absent`, or `changed` when both have it with other answers.
    """
    if a.comparison is None or b.comparison is None:
        return []
    in_a = {d.id: d for d in a.comparison.differences}
    in_b = {d.id: d for d in b.comparison.differences}
    rows: list[tuple[str, str, str, str]] = []
    for did in dict.fromkeys([*in_a, *in_b]):
        da, db = in_a.get(did), in_b.get(did)
        va = "absent" if da is None else "accepted" if da.accepted else "differs"
        vb = "absent" if db is None else "accepted" if db.accepted else "differs"
        if da is not None and db is not None and (da.a, da.b) != (db.a, db.b):
            vb = f"changed ({vb})"
        either = da if da is not None else db
        rows.append((did, va, vb, either.summary if either is not None else ""))
    return rows


def _install(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    target = resolve_target(
        args.target, cache_dir=args.target_cache, progress=lambda msg: write_line(f"  {safe(msg, 200)}", out)
    )
    for key, value in target.identity.model_dump(mode="json").items():
        if value not in (None, [], {}):
            write_line(
                f"{key}: {safe(str(value) if not isinstance(value, list) else ' '.join(value), 500)}", out
            )
    return 0


def _baseline(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    report = load_report(args.report)
    existing = load_baseline(args.refresh) if args.refresh is not None else None
    project = (
        args.project
        or (existing.project if existing else None)
        or project_of(report.target)
        or report.target.spec
    )
    kept = canonical_entries(existing, load_catalog_view().canonical) if existing is not None else {}
    entries: list[BaselineEntry] = []
    added: list[str] = []
    resigned: list[str] = []
    for rv in report.records:
        if rv.verdict not in ("deviates", "error"):
            continue
        old = kept.get(rv.id)
        if old is None:
            added.append(rv.id)
        elif old.signature != rv.signature:
            resigned.append(rv.id)
        entries.append(
            BaselineEntry(
                record=rv.id,
                verdict="error" if rv.verdict == "error" else "deviates",
                reason=old.reason if old else f"TODO say why; observed: {rv.reason or rv.verdict}",
                signature=rv.signature,
                witness=rv.witness,
            )
        )
    removed = [rid for rid in kept if rid not in {e.record for e in entries}]
    text = dump_baseline(Baseline(project=project, target=report.target.spec, deviations=entries))
    destination = args.output if args.output is not None else args.refresh
    if destination is None:
        out.write(text)
        return 0
    destination.write_text(text, encoding="utf-8")
    unsigned = sum(1 for e in entries if e.signature is None)
    if existing is None:
        note = f" ({unsigned} without a signature: the report has none for them)" if unsigned else ""
        write_line(
            f"wrote {len(entries)} entries for project {safe(project)} to {safe(str(destination))}{note}", out
        )
        return 0
    write_line(
        f"refreshed {safe(str(destination))} (project {safe(project)}): kept {len(entries) - len(added)} "
        f"reasons, re-pinned {len(resigned)} signature(s){_listed(resigned)}, added {len(added)}"
        f"{_listed(added)}, removed {len(removed)}{_listed(removed)}",
        out,
    )
    if added:
        write_line("new entries say TODO: write why before committing", out)
    return 0


def _listed(ids: Sequence[str]) -> str:
    return f" ({', '.join(ids)})" if ids else ""


def _atlas(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from conformance.atlas.build import AtlasOptions, build_atlas, merge_atlases

    say = lambda msg: write_line(safe(msg, 300), out)  # noqa: E731
    if args.merge is not None:
        if args.targets:
            raise UsageError("atlas --merge takes atlas folders, not targets")
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
        )
    else:
        options = AtlasOptions(
            targets=tuple(args.targets),
            env=_env_of(args.env),
            profile=args.profile or default_profile(),
            seed=args.seed if args.seed is not None else secrets.randbelow(2**32),
            jobs=args.jobs,
            out=args.out,
            compare=not args.no_compare,
            compare_switches=not args.no_compare_switches,
            switches=not args.no_switches,
            cache=args.target_cache,
            timeout=args.call_timeout,
            suite=args.suite,
        )
        atlas = build_atlas(options, progress=say)
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
