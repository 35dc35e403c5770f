"""`baseline`: a baseline written from a report's departures, or an existing one refreshed from it."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from conformance.report.escape import safe, write_line

NAME = "baseline"
HELP = "write a baseline from a report's departures, or refresh one"
DESCRIPTION = (
    "Write a baseline (format /4): one entry per root cause of a report, the departures it explains "
    "folded under it, each with its behaviour signature; edit "
    "the reasons before committing it. With --refresh FILE, keep FILE's reasons, take the report's "
    "signatures, add entries, keep its comments and the entries the report did not run, list those that no "
    "longer depart (removed with --drop-stale), and say what changed. A report of a stopped run, of a "
    "target that could not be used or of another project is refused (exit status 4)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("report", type=Path, metavar="REPORT.json", help="the report.json of a run")
    parser.add_argument(
        "--output", "-o", type=Path, default=None, metavar="FILE", help="write here instead of stdout"
    )
    parser.add_argument(
        "--project",
        default=None,
        metavar="NAME",
        help="the project it is for (default: the report's npm package or the fork's package.json name)",
    )
    parser.add_argument(
        "--refresh",
        type=Path,
        default=None,
        metavar="FILE",
        help="update this baseline in place (or into --output) from the report, keeping its reasons and "
        "comments",
    )
    parser.add_argument(
        "--drop-stale",
        action="store_true",
        help="with --refresh: remove the entries whose records the report saw hold (listed either way)",
    )


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from conformance.catalog.view import load_catalog_view
    from conformance.core.inputs import BASELINE_BYTES, read_text
    from conformance.core.outfolder import write_file
    from conformance.gate.baseline import (
        canonical_entries,
        check_fits,
        check_readable,
        dump_baseline,
        load_baseline,
    )
    from conformance.gate.refresh import carry_comments, check_project, check_report, refresh
    from conformance.report.json import load_report
    from conformance.targets.project import project_of

    existing = load_baseline(args.refresh) if args.refresh is not None else None
    report = load_report(args.report)
    check_report(report, args.report)
    if existing is not None and args.project is None:
        check_project(project_of(report.target), existing, args.refresh, args.report)
    project = (
        args.project
        or (existing.project if existing else None)
        or project_of(report.target)
        or report.target.spec
    )
    canonical = load_catalog_view().canonical
    kept = canonical_entries(existing, canonical) if existing is not None else {}
    done = refresh(report, project, kept, drop_stale=args.drop_stale)
    check_fits(done.baseline, f"project {safe(project)}")
    text = dump_baseline(done.baseline)
    carried = 0
    if existing is not None:
        records = [canonical.get(e.record, e.record) for e in existing.deviations]
        before = read_text(args.refresh, what="baseline", limit=BASELINE_BYTES)
        text, carried = carry_comments(before, text, records)
    destination = args.output if args.output is not None else args.refresh
    check_readable(text, f"project {safe(project)}")
    if destination is None:
        out.write(text)
        return 0
    hint = "use --refresh FILE to update it keeping its reasons, or choose another path"
    write_file(destination, text, replace=existing is not None, hint=hint)
    entries = done.baseline.deviations
    if existing is None:
        unsigned = sum(1 for e in entries if e.signature is None)
        note = f" ({unsigned} without a signature: the report has none for them)" if unsigned else ""
        write_line(
            f"wrote {len(entries)} entries for project {safe(project)} to {safe(str(destination))}{note}", out
        )
        return 0
    write_line(
        f"refreshed {safe(str(destination))} (project {safe(project)}): kept the reasons of "
        f"{len(done.kept)} departure(s), re-pinned {len(done.resigned)} signature(s)"
        f"{_listed(done.resigned)}, added "
        f"{len(done.added)}{_listed(done.added)}, "
        + (f"removed {len(done.stale)}{_listed(done.stale)}" if args.drop_stale else "removed 0")
        + (f", {carried} comment line(s) kept" if carried else ""),
        out,
    )
    if done.stale and not args.drop_stale:
        write_line(
            f"no longer departing, kept with their reasons: {', '.join(done.stale)} "
            "(--drop-stale removes them)",
            out,
        )
    if done.unchecked:
        write_line(f"not run by this report, kept as written: {', '.join(done.unchecked)}", out)
    if done.added:
        write_line("new entries say TODO: write why before committing", out)
    return 0


def _listed(ids: Sequence[str]) -> str:
    return f" ({', '.join(ids)})" if ids else ""
