"""The command line's commands, in the order `--help` lists them.

Every command is one module of the same shape: `NAME`, `HELP` (its line in `--help`), `DESCRIPTION` (its
own `--help`, or None), `add_arguments(parser)`, and `main(args, out, err)` returning the exit status. A new
command is one module beside these and one entry in `COMMANDS`; `cli/main.py` dispatches and turns every
`HarnessError` into one line and exit status 2.

Every start of the command line imports every command module, so a module imports at its top only what its
arguments and help need; what `main` runs (the runner, the engines, the report model, the catalog) it imports
inside `main`, and only the chosen command pays for it (`tests/fast/test_cli_imports.py`).
"""

from __future__ import annotations

import argparse
from typing import Protocol, TextIO

from conformance.cli.commands import atlas, baseline, compare, diff, install, records, run


class Command(Protocol):
    """A command module's shape (read-only, as module constants are)."""

    @property
    def NAME(self) -> str: ...

    @property
    def HELP(self) -> str: ...

    @property
    def DESCRIPTION(self) -> str | None: ...

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def main(self, args: argparse.Namespace, out: TextIO, err: TextIO) -> int: ...


COMMANDS: tuple[Command, ...] = (run, records, diff, compare, install, baseline, atlas)
