"""Whether the stderr box is coloured, by the rules of the original's colour library (chalk 5.x).

chalk's default instance takes its level from supports-color's verdict on *stdout* (fd 1), computed
once at start-up from process.argv, the environment and `isatty(1)`. An MCP stdio server's stdout is
the wire (a pipe), so there is no colour unless forced (FORCE_COLOR, --color, ...). This is a port
of chalk/source/vendor/supports-color/index.js for POSIX; the Windows branch is not modelled.
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

_JS_WHITESPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_DECIMAL_PREFIX: Final = re.compile(r"[+-]?[0-9]+", re.ASCII)
_TEAMCITY: Final = re.compile(r"9\.(0*[1-9][0-9]*)\.|[0-9]{2,}\.", re.ASCII)
_TERM_256: Final = re.compile(r"-256(color)?\Z", re.ASCII | re.IGNORECASE)
_TERM_BASIC: Final = re.compile(
    r"^screen|^xterm|^vt100|^vt220|^rxvt|color|ansi|cygwin|linux", re.ASCII | re.IGNORECASE
)


def js_parse_int(text: str) -> float:
    """`Number.parseInt(text, 10)`: leading JS whitespace, a sign, then decimal digits; NaN if none."""
    match = _DECIMAL_PREFIX.match(text.lstrip(_JS_WHITESPACE))
    if match is None:
        return math.nan
    return float(match.group())


def _has_flag(flag: str, argv: Sequence[str]) -> bool:
    prefix = "" if flag.startswith("-") else ("-" if len(flag) == 1 else "--")
    try:
        position = argv.index(prefix + flag)
    except ValueError:
        return False
    try:
        terminator = argv.index("--")
    except ValueError:
        return True
    return position < terminator


def _env_force_color(env: Mapping[str, str]) -> float | None:
    if "FORCE_COLOR" not in env:
        return None
    value = env["FORCE_COLOR"]
    if value == "true":
        return 1.0
    if value == "false":
        return 0.0
    if value == "":
        return 1.0
    parsed = js_parse_int(value)
    return parsed if math.isnan(parsed) else min(parsed, 3.0)


def supports_color_level(env: Mapping[str, str], argv: Sequence[str], stream_is_tty: bool) -> float:
    """supports-color's `_supportsColor(stream, {streamIsTTY})`: 0..3, or NaN/negative if forced oddly."""
    flag_force: float | None = None
    if any(_has_flag(f, argv) for f in ("no-color", "no-colors", "color=false", "color=never")):
        flag_force = 0.0
    elif any(_has_flag(f, argv) for f in ("color", "colors", "color=true", "color=always")):
        flag_force = 1.0
    env_force = _env_force_color(env)
    if env_force is not None:
        flag_force = env_force
    force = flag_force
    if force is not None and force == 0:
        return 0.0
    if any(_has_flag(f, argv) for f in ("color=16m", "color=full", "color=truecolor")):
        return 3.0
    if _has_flag("color=256", argv):
        return 2.0
    if "TF_BUILD" in env and "AGENT_NAME" in env:
        return 1.0
    if not stream_is_tty and force is None:
        return 0.0
    floor = force if force is not None and not math.isnan(force) else 0.0
    term = env.get("TERM")
    if term == "dumb":
        return floor
    if "CI" in env:
        if any(key in env for key in ("GITHUB_ACTIONS", "GITEA_ACTIONS", "CIRCLECI")):
            return 3.0
        if any(key in env for key in ("TRAVIS", "APPVEYOR", "GITLAB_CI", "BUILDKITE", "DRONE")):
            return 1.0
        if env.get("CI_NAME") == "codeship":
            return 1.0
        return floor
    if "TEAMCITY_VERSION" in env:
        return 1.0 if _TEAMCITY.match(env["TEAMCITY_VERSION"]) else 0.0
    if env.get("COLORTERM") == "truecolor":
        return 3.0
    if term in ("xterm-kitty", "xterm-ghostty", "wezterm"):
        return 3.0
    if "TERM_PROGRAM" in env:
        version = js_parse_int((env.get("TERM_PROGRAM_VERSION") or "").split(".")[0])
        program = env["TERM_PROGRAM"]
        if program == "iTerm.app":
            return 3.0 if version >= 3 else 2.0
        if program == "Apple_Terminal":
            return 2.0
    term_text = "undefined" if term is None else term
    if _TERM_256.search(term_text):
        return 2.0
    if _TERM_BASIC.search(term_text):
        return 1.0
    if "COLORTERM" in env:
        return 1.0
    return floor


class ChalkLevelError(Exception):
    """chalk refuses the level supports-color gave stderr: the original dies loading its modules."""

    message = "The `level` option should be an integer from 0 to 3"

    def __init__(self) -> None:
        super().__init__(self.message)


def chalk_accepts_level(level: float) -> bool:
    """chalk's applyOptions check on an explicit level: `level && !(integer in 0..3)` throws."""
    if math.isnan(level) or level == 0:
        return True
    return level.is_integer() and 0 <= level <= 3


def chalk_colours(level: float) -> bool:
    """chalk styles a non-empty string unless `level <= 0` (a NaN level therefore colours)."""
    return not level <= 0


@dataclass(frozen=True, slots=True)
class Prefixes:
    """The three header prefixes `formatThought` builds with chalk.yellow/green/blue."""

    revision: str
    branch: str
    thought: str


_PLAIN: Final = Prefixes("🔄 Revision", "🌿 Branch", "💭 Thought")
_COLOURED: Final = Prefixes(
    "\x1b[33m🔄 Revision\x1b[39m",
    "\x1b[32m🌿 Branch\x1b[39m",
    "\x1b[34m💭 Thought\x1b[39m",
)


def prefixes(coloured: bool) -> Prefixes:
    return _COLOURED if coloured else _PLAIN


def detect_prefixes(
    env: Mapping[str, str] | None = None, argv: Sequence[str] | None = None, stdout_is_tty: bool | None = None
) -> Prefixes:
    """The prefixes this process would print, decided once at start-up like chalk does.

    chalk also builds `chalkStderr` at import with supports-color's verdict on fd 2 as an explicit
    level; a negative level (FORCE_COLOR=-1 and no terminal hint) makes that throw, so the
    original never starts: raised here as ChalkLevelError.
    """
    environment = os.environ if env is None else env
    arguments = sys.argv[1:] if argv is None else argv
    stdout_level = supports_color_level(
        environment, arguments, os.isatty(1) if stdout_is_tty is None else stdout_is_tty
    )
    if not chalk_accepts_level(supports_color_level(environment, arguments, os.isatty(2))):
        raise ChalkLevelError()
    return prefixes(chalk_colours(stdout_level))
