"""The command line: `run` (the gate), `records` (the catalog), `diff` (drift between two reports),
`compare` (two targets side by side), `install` (fetch an npm target ahead of time), `baseline` (start
or refresh a baseline from a report), `atlas` (every release, run and compared); one module each in
`cli/commands/`.

Exit status: 0 the gate passed / nothing differs; 1 the gate failed / reports differ; 2 the target
cannot be used; 4 the command is misused or a file it names cannot be used (nothing written) — always with
one line on stderr saying why, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from conformance.cli import commands
from conformance.cli.arguments import PROG, Parser, add_version
from conformance.cli.output import pipe_safe
from conformance.core.errors import HarnessError, InputError, NoSpaceError, no_space
from conformance.drivers.cancel import Cancelled
from conformance.gate import exit_status
from conformance.report.escape import safe, write_line


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG, description="Conformance and claim-audit harness for the sequentialthinking MCP server."
    )
    add_version(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    subparsers.required = True
    for command in commands.COMMANDS:
        command.add_arguments(
            subparsers.add_parser(command.NAME, help=command.HELP, description=command.DESCRIPTION)
        )
    return parser


def main(
    argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    out = pipe_safe(stdout if stdout is not None else sys.stdout)
    err = pipe_safe(stderr if stderr is not None else sys.stderr)
    args: argparse.Namespace | None = None
    try:
        args = build_parser().parse_args(argv)
        command = next(c for c in commands.COMMANDS if args.command == c.NAME)
        return command.main(args, out, err)
    except BrokenPipeError:
        return _pipe_closed(args, err, real_stdout=stdout is None)
    except (HarnessError, OSError) as exc:
        return _one_line(exc, err)
    except Cancelled as exc:
        write_line(f"{PROG}: {safe(exc.stop.reason)}", err)
        return exc.stop.exit_code
    except KeyboardInterrupt:
        write_line(f"{PROG}: interrupted", err)
        return exit_status.INTERRUPTED


def _one_line(exc: HarnessError | OSError, err: TextIO) -> int:
    """A failure the harness can name in one line, and its exit status: a full device first, wherever it
    surfaced (a report, a transcript, a scratch file), then a bad input, an unusable target, a file."""
    full = no_space(exc)
    if full is not None:
        if isinstance(exc, NoSpaceError):
            line = str(exc)
        elif full.filename:
            line = f"no space left on device: {full.filename}"
        else:
            line = "no space left on device: the command could not write its files"
        write_line(f"{PROG}: error: {safe(line, 2000)}", err)
        return exit_status.NO_SPACE
    if isinstance(exc, InputError):
        write_line(f"{PROG}: error: {safe(str(exc), 2000)}", err)
        return exit_status.USAGE
    if isinstance(exc, HarnessError):
        write_line(f"{PROG}: error: {safe(str(exc), 2000)}", err)
        return exit_status.UNUSABLE
    where = f" {exc.filename}" if exc.filename else ""
    write_line(f"{PROG}: error: cannot use{safe(str(where))}: {safe(exc.strerror or str(exc))}", err)
    return exit_status.UNUSABLE


LISTINGS = ("records", "diff")
"""Commands whose output is a listing a reader may stop reading (`| head -1`); `run --list` is one too."""


def _pipe_closed(args: argparse.Namespace | None, err: TextIO, *, real_stdout: bool) -> int:
    """The reader of sys.stdout went away (`| head`) while something wrote there and not to the command's
    `out` (which never raises it: `cli/output.py`): a listing or help ends quietly with status 0 (as under
    `bash -eo pipefail` it must); any other command stopped before its work was done, and says so."""
    if real_stdout:
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if args is None or args.command in LISTINGS or getattr(args, "list", False) is True:
        return exit_status.OK
    write_line(f"{PROG}: error: its output was closed (broken pipe) before {args.command} finished", err)
    return exit_status.UNUSABLE
