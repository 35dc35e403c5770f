"""What the commands share on the command line: the program's name, the parser that turns misuse into one
line, and the argument types (`--target` specs, `--env` pairs, counts, seeds, seconds, byte sizes), each with
its range, so a value out of range is a usage error before anything starts."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from conformance.core.eras import ERA_NAMES
from conformance.core.errors import HarnessError, InputError
from conformance.core.identity import ShardIdentity, parse_shard
from conformance.drivers.capture import DEFAULT_MAX_FRAME
from conformance.targets.kinds import kind_of, one_of, syntaxes
from conformance.targets.specs import parse_env_pair, split_env, with_env

PROG = "seqthink-conformance"
DISTRIBUTION = "seqthink-conformance"


SEED_LIMIT = 2**32
"""Seeds are whole numbers below this: the range a random default is drawn from and hypothesis replays."""
MAX_SECONDS = 7 * 24 * 3600.0
"""The longest time an option may name (a week): beyond it a value is a typo and time arithmetic overflows."""
MAX_FRAME_LIMIT = 1 << 30
"""The largest `--max-frame` accepted (1 GiB)."""


class UsageError(InputError):
    """The command line is wrong (exit status 4, `exit_status.USAGE`)."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        """As argparse, but words left over are refused by the command they were given to (its help, the
        option they were likely meant as, or the quoting a `cmd:` command line needs)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = self._command_parser(parsed) or self
            hint = leftover_hint(command, parsed, extras)
            command.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
        return parsed

    def _command_parser(self, parsed: argparse.Namespace) -> argparse.ArgumentParser | None:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(parsed, action.dest or "", None) or "")
                return chosen if isinstance(chosen, argparse.ArgumentParser) else None
        return None


def leftover_hint(parser: argparse.ArgumentParser, parsed: argparse.Namespace, extras: Sequence[str]) -> str:
    """`; did you mean --target?` for a mistyped option; the quoting for the words after an unquoted `cmd:`
    command line (`--target cmd:node x.js` leaves `x.js` over); "" when neither is likely."""
    import difflib
    import shlex

    options = [o for action in parser._actions for o in action.option_strings if o.startswith("--")]
    for extra in extras:
        if extra.startswith("--"):
            close = difflib.get_close_matches(extra.split("=", 1)[0], options, n=1, cutoff=0.6)
            if close:
                return f"; did you mean {close[0]}?"
    commands = [v for v in vars(parsed).values() if isinstance(v, str) and split_env(v)[1].startswith("cmd:")]
    words = [e for e in extras if not e.startswith("-")]
    if commands and words:
        whole = shlex.quote(f"{split_env(commands[0])[1]} {' '.join(words)}")
        return f"; a cmd: command line with spaces is one argument: quote it whole, e.g. {whole}"
    return ""


def jobs(text: str) -> int:
    """Parallel workers: at least 1, at most four per core this process may use."""
    most = 4 * usable_cores()
    value = _whole_number(text, 1, "must be at least 1")
    if value > most:
        raise argparse.ArgumentTypeError(f"must be at most {most} (4 per core, {usable_cores()} cores)")
    return value


def usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def positive_seconds(text: str) -> float:
    """A finite number of seconds above 0 and at most `MAX_SECONDS`."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds above 0 and at most {MAX_SECONDS:.0f}, not {text!r}"
        )
    return value


def shard(text: str) -> ShardIdentity:
    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def eras(text: str) -> str:
    """`default`, `all`, or revisions and `auto`, comma-separated: whom spec records are judged with."""
    words = [word.strip() for word in text.split(",") if word.strip()]
    if words in (["default"], ["all"]):
        return words[0]
    unknown = [word for word in words if word not in ERA_NAMES]
    if not words or unknown:
        raise argparse.ArgumentTypeError(
            f"expected default, all, or some of {', '.join(ERA_NAMES)} (comma-separated), not {text[:60]!r}"
        )
    return ",".join(dict.fromkeys(words))


def seed(text: str) -> int:
    value = _whole_number(text, 0, "must not be negative")
    if value >= SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"must be below 2**32 ({SEED_LIMIT})")
    return value


def frame_bytes(text: str) -> int:
    """A frame size limit in bytes: at least 1 KiB (a handshake must fit), at most `MAX_FRAME_LIMIT`."""
    value = _whole_number(text, 1024, "must be at least 1024 bytes")
    if value > MAX_FRAME_LIMIT:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_FRAME_LIMIT} bytes")
    return value


def _whole_number(text: str, least: int, below: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(below)
    return value


def target_spec(text: str) -> str:
    """A spec of a listed kind (`targets/kinds`), its environment variables sorted; a word that names none
    (`x.js` after an unquoted `cmd:node`) is told the quoting."""
    env, base = split_env(text)
    kind = kind_of(base)
    if kind is not None:
        try:
            kind.check(base)
        except HarnessError as exc:
            raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
        return with_env(base, env) if env else text
    quoting = "" if ":" in base else " (a cmd: command line with spaces is one argument: quote it whole)"
    raise argparse.ArgumentTypeError(f"{text!r}: expected [KEY=VALUE ...] {one_of(syntaxes())}{quoting}")


def cache_folder(text: str) -> Path:
    """`--target-cache`: a folder, or a path where one can be made (not a file)."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a file, not a folder")
    return path


def env_pair(text: str) -> str:
    try:
        key, value = parse_env_pair(text)
    except HarnessError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return f"{key}={value}"


def env_of(pairs: Sequence[str] | None) -> dict[str, str]:
    return dict(parse_env_pair(p) for p in pairs or [])


def add_max_frame(parser: argparse.ArgumentParser) -> None:
    """`--max-frame`: the longest stdout frame a server may write before it is an `error` (the bytes are not
    kept), so a server writing without end costs the harness a bounded amount of memory."""
    parser.add_argument(
        "--max-frame",
        type=frame_bytes,
        default=DEFAULT_MAX_FRAME,
        metavar="BYTES",
        help=f"longest stdout frame read from a server, longer is an error (default: {DEFAULT_MAX_FRAME})",
    )


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
    from importlib import metadata  # read when asked: every other start of the command line skips it

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown (not installed: pip install the repository)"


class _Version(argparse.Action):
    """argparse's `version` action with the version read only when `--version` is given."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[object] | None, option_string: str | None = None) -> None:
        sys.stdout.write(f"{PROG} {version()}\n")
        parser.exit()


def add_version(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-V", "--version", action=_Version, nargs=0, default=argparse.SUPPRESS,
                        help="print the harness's version and exit")
