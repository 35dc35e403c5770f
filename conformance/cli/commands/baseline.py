"""`baseline`: a baseline written from a report's departures, or an existing one refreshed from it."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from conformance.catalog.view import load_catalog_view
from conformance.gate.baseline import Baseline, BaselineEntry, canonical_entries, dump_baseline, load_baseline
from conformance.report.escape import safe, write_line
from conformance.report.json import load_report
from conformance.targets.project import project_of

NAME = "baseline"
HELP = "write a baseline from a report's departures, or refresh one"
DESCRIPTION = (
    "Write a baseline (format /2) listing every departure of a report with its behaviour signature; edit "
    "the reasons before committing it. With --refresh FILE, keep FILE's reasons, take the report's "
    "signatures, add and remove entries, and say what changed."
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
        help="update this baseline in place (or into --output) from the report",
    )


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
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
