"""`records`: the records catalog, filtered by kind, observability and channel."""

from __future__ import annotations

import argparse
import json
from typing import TextIO, get_args

from conformance.catalog.channels import Channel
from conformance.cli.arguments import UsageError
from conformance.report.escape import safe, write_line

NAME = "records"
HELP = "list the records catalog"
DESCRIPTION = "List the records catalog, filtered by kind and observability."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kind",
        action="append",
        metavar="KIND",
        help="only records of this kind (repeatable), e.g. rte, abs, amendment, clm",
    )
    observable = parser.add_mutually_exclusive_group()
    observable.add_argument("--observable", action="store_true", help="only records observable from outside")
    observable.add_argument("--unobservable", action="store_true", help="only records that are not, with why")
    parser.add_argument(
        "--channel",
        action="append",
        type=str.lower,
        choices=get_args(Channel),
        metavar="CHANNEL",
        help=f"only records observable through this channel ({', '.join(get_args(Channel))})",
    )
    parser.add_argument("--json", action="store_true", help="JSON lines instead of a table")


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from conformance.catalog.view import load_catalog_view

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
