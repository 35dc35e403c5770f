"""`diff`: records (and comparison differences) whose verdict differs between two reports."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from conformance.gate import exit_status
from conformance.report.escape import safe, write_line
from conformance.report.json import load_report
from conformance.report.model import Report

NAME = "diff"
HELP = "records whose verdict differs between two reports"
DESCRIPTION = (
    "Records whose verdict differs between two report.json files, side by side. Exit 0 when none differ, "
    "1 when some do."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", type=Path, metavar="A/report.json")
    parser.add_argument("b", type=Path, metavar="B/report.json")
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    parser.add_argument("--all", action="store_true", help="list every record, not only those that differ")


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
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
