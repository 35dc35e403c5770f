"""Every option of every command says what it is for (`--help` is the manual a fork's maintainer reads
first), `--version` names the installed version, and a reader that stops reading a listing (`| head -1`)
ends it quietly with status 0, as `bash -eo pipefail` in CI needs."""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata

import pytest

from conformance.cli import commands
from conformance.cli.arguments import DISTRIBUTION, PROG
from conformance.cli.main import build_parser, main
from tests.cli import REPO
from tests.fast.test_cli_commands import _echo_command


def _parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


PARSERS = dict(_parsers(build_parser()))


def test_the_walk_reaches_every_command() -> None:
    assert set(PARSERS) == {(), *((command.NAME,) for command in commands.COMMANDS)}
    assert len(PARSERS) > 5


@pytest.mark.parametrize("path", list(PARSERS), ids=lambda p: " ".join(p) or PROG)
def test_every_option_and_argument_has_help_that_starts_with_words(path: tuple[str, ...]) -> None:
    parser = PARSERS[path]
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
            continue
        name = "/".join(action.option_strings) or action.dest
        assert action.help, f"{' '.join(path)} {name} has no help text"
        assert action.help[0].isalpha() and action.help == action.help.strip(), (name, action.help)
    assert parser.format_help().startswith("usage: ")


def _child(*args: str, stdout: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "conformance", *args], cwd=REPO, env=env, text=True,
                          stdout=stdout if stdout is not None else subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=60, check=False)


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_prints_the_installed_version(flag: str) -> None:
    done = _child(flag)
    said = f"{PROG} {metadata.version(DISTRIBUTION)}\n"
    assert (done.returncode, done.stdout, done.stderr) == (0, said, "")


@pytest.mark.parametrize("command", [c.NAME for c in commands.COMMANDS])
def test_every_command_has_a_description_under_its_usage(command: str) -> None:
    """`COMMAND --help` says what the command does, not only its options."""
    description = PARSERS[(command,)].description
    assert description and len(description.split()) > 5, f"{command} --help has no description"


@pytest.mark.parametrize("argv", [["records"], ["run", "--help"]], ids=["records", "help"])
def test_a_closed_pipe_ends_a_listing_quietly_with_status_0(argv: list[str]) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line, as `| head -0` leaves it
    try:
        done = _child(*argv, stdout=write)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr


def test_a_closed_pipe_never_stops_a_command_nor_changes_its_status(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a command makes is its files and its exit status: a reader that went away (`run ... | head -3`)
    does not stop it (it used to end with status 2, "its output was closed"), and what it writes after goes
    nowhere, without an error."""
    written: list[str] = []

    class Closed(io.StringIO):
        def write(self, text: str) -> int:
            written.append(text)
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(commands, "COMMANDS", (*commands.COMMANDS, _echo_command(twice=True)))
    err = io.StringIO()
    assert main(["echo", "hello"], stdout=Closed(), stderr=err) == 0
    assert err.getvalue() == ""
    assert written == ["hello\n"], "written to again after the reader went away"
    failed = main(["echo", "fail"], stdout=Closed(), stderr=err)
    assert failed == 2, "a command's own failure keeps its status"
