"""`diff`: records (and comparison differences) whose verdict differs between two reports."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from conformance.gate import exit_status
from conformance.report.escape import write_line

NAME = "diff"
HELP = "records whose verdict differs between two reports"
DESCRIPTION = (
    "Records whose verdict differs between two report.json files, side by side. Exit 0 when none differ, "
    "1 when some do."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", type=Path, metavar="A/report.json", help="the earlier run's report.json")
    parser.add_argument("b", type=Path, metavar="B/report.json", help="the later run's report.json")
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                        help="text (default), markdown (for a pull-request comment) or json")
    parser.add_argument("--all", action="store_true", help="list every record, not only those that differ")


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from conformance.report.drift import compute_drift, render_drift
    from conformance.report.json import load_report

    drift = compute_drift(load_report(args.a), load_report(args.b), str(args.a), str(args.b))
    for line in render_drift(drift, args.format, every=args.all):
        write_line(line, out)
    return exit_status.GATE_FAILED if drift.differs else exit_status.OK
