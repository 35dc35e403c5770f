"""What the commands share on the command line: the program's name, the parser that turns misuse into one
line, and the argument types (`--target` specs, `--env` pairs, counts, seeds, seconds)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from importlib import metadata
from typing import NoReturn

from conformance.core.errors import HarnessError, InputError
from conformance.targets.kinds import kind_of, one_of, syntaxes
from conformance.targets.specs import parse_env_pair, split_env, with_env

PROG = "seqthink-conformance"
DISTRIBUTION = "seqthink-conformance"


class UsageError(InputError):
    """The command line is wrong (exit status 4)."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def positive(text: str) -> int:
    return _whole_number(text, 1, "must be at least 1")


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value


def seed(text: str) -> int:
    return _whole_number(text, 0, "must not be negative")


def _whole_number(text: str, least: int, below: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(below)
    return value


def target_spec(text: str) -> str:
    """A spec of a listed kind (`targets/kinds`), its environment variables sorted."""
    env, base = split_env(text)
    if kind_of(base) is not None:
        return with_env(base, env) if env else text
    raise argparse.ArgumentTypeError(f"{text!r}: expected [KEY=VALUE ...] {one_of(syntaxes())}")


def env_pair(text: str) -> str:
    try:
        key, value = parse_env_pair(text)
    except HarnessError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return f"{key}={value}"


def env_of(pairs: Sequence[str] | None) -> dict[str, str]:
    return dict(parse_env_pair(p) for p in pairs or [])


def add_env(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--env",
        action="append",
        type=env_pair,
        metavar="KEY=VALUE",
        help="start the target(s) with this environment variable (repeatable; recorded in the identity)",
    )


def version() -> str:
    """The installed distribution's version (pyproject.toml is its one source)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown (not installed: pip install the repository)"


def add_version(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}",
                        help="print the harness's version and exit")
