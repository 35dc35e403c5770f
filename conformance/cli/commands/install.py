"""`install`: an npm target installed into the cache ahead of a run, its identity printed."""

from __future__ import annotations

import argparse
from typing import TextIO

from conformance.cli.arguments import cache_folder, target_spec
from conformance.report.escape import safe, write_line

NAME = "install"
HELP = "install an npm target into the cache ahead of a run"
DESCRIPTION = (
    "Install an npm release of the server (npm:<version>, or npm:<version>@today for today's dependency "
    "tree) into the target cache, checking its integrity, and print its identity; run, compare and atlas "
    "then start it without installing. Exit 0 when installed, 2 when it cannot be, 4 on a usage error."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", type=target_spec, metavar="TARGET", help="an npm:<version>[@today] target")
    parser.add_argument("--target-cache", type=cache_folder, default=None, metavar="DIR",
                        help="where to install it (default: $SEQTHINK_CONFORMANCE_CACHE or the user cache)")
    parser.add_argument("--adopt", action="store_true",
                        help="install nothing: record the install already in the cache as trusted (a cache "
                             "filled by this user before installs were recorded in the state folder; see "
                             "docs/security.md)")


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from conformance.targets.specs import default_cache_dir, resolve_target

    if args.adopt:
        from conformance.drivers.errors import TargetError
        from conformance.targets.kinds import npm

        if not npm.KIND.matches(args.target):
            raise TargetError(f"--adopt takes an npm:<version> target, not {args.target!r}")
        target = npm.adopt(args.target, args.target_cache or default_cache_dir())
    else:
        target = resolve_target(
            args.target, cache_dir=args.target_cache,
            progress=lambda msg: write_line(f"  {safe(msg, 200)}", out),
        )
    for key, value in target.identity.model_dump(mode="json").items():
        if value not in (None, [], {}):
            write_line(
                f"{key}: {safe(str(value) if not isinstance(value, list) else ' '.join(value), 500)}", out
            )
    return 0
