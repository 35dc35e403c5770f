"""A CLI command is one module in `conformance/cli/commands` and one entry in `COMMANDS`: the dispatcher
builds its parser from the list and gives every command the same error handling."""

from __future__ import annotations

import argparse
import io
import re
import types
from typing import TextIO

import pytest

from conformance.cli import commands
from conformance.cli.main import main
from conformance.core.errors import HarnessError


def _echo_command(*, twice: bool = False) -> types.ModuleType:
    """A command only this test knows: prints its argument (`twice`: two lines), or fails as a command may."""
    module = types.ModuleType("echo")
    module.NAME = "echo"
    module.HELP = "say a word back"
    module.DESCRIPTION = None

    def add_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("word")

    def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
        if args.word == "fail":
            raise HarnessError("the word was fail")
        for _ in range(2 if twice else 1):
            out.write(f"{args.word}\n")
        return 0

    module.add_arguments = add_arguments
    module.main = run
    return module


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_every_listed_command_has_the_one_shape() -> None:
    names = [command.NAME for command in commands.COMMANDS]
    assert names == ["run", "records", "diff", "compare", "install", "baseline", "atlas"]
    for command in commands.COMMANDS:
        assert command.HELP and callable(command.add_arguments) and callable(command.main)
        assert command.__name__ == f"conformance.cli.commands.{command.NAME}"


def test_a_listed_command_is_parsed_dispatched_and_its_errors_handled(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("echo", "hello")[0] == 4, "not listed: the parser refuses it"
    monkeypatch.setattr(commands, "COMMANDS", (*commands.COMMANDS, _echo_command()))
    assert cli("echo", "hello") == (0, "hello\n", "")
    assert cli("echo", "fail") == (2, "", "seqthink-conformance: error: the word was fail\n")
    with pytest.raises(SystemExit):
        main(["--help"])
    assert re.search(r"\n +echo +say a word back\n", capsys.readouterr().out)
