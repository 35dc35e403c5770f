"""What a server that died at start said, and what to do about it: the meaningful lines of its stderr (the
first error line and the last few, without stack frames and source echoes) and the hint of the first known
case that matches (fixtures/startup/hints.yaml), so a fork's maintainer reads "not built" where Node.js
ended its stderr with its version."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict

from conformance.catalog.fixtures import fixtures_dir
from conformance.catalog.schemas import read_validated_yaml
from conformance.core.errors import HarnessError

HINTS_FORMAT: Final = "seqthink-startup-hints/1"
LAST_LINES: Final = 3
"""How many of the last meaningful stderr lines a start failure quotes beside its first error line."""
LINE_CHARS: Final = 300
LAST_WORDS_CHARS: Final = 1000
"""The first error line is the server's own last word (a dependency's message may end with what to do: "…or
pin 'mcp<2' to keep running v1 code"): kept whole up to this, where other lines are cut at `LINE_CHARS`."""

_ERROR_LINE: Final = re.compile(
    r"^(?:[\w.]*(?:Error|Exception)(?: \[[A-Z0-9_]+\])?:|(?:error|fatal|panic)\b)", re.IGNORECASE
)
"""A line that states an error: `Error: ...`, `SyntaxError: ...`, `Error [ERR_X]: ...`, `error: ...`."""
_NOISE: Final = (
    re.compile(r"^\S+:\d+(?::\d+)?$"),  # where Node.js says the error was thrown: `file:///x.js:5`
    re.compile(r"^[\s^~{}()\[\],;]*$"),  # carets under the source, an object's braces
    re.compile(r"^Traceback \(most recent call last\):$"),
    re.compile(r"^During handling of the above exception|^The above exception was the direct cause"),
)


class StartupHintsError(HarnessError):
    """fixtures/startup/hints.yaml cannot be read or does not fit its schema."""


class StartupHint(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    case: str
    match: list[str]
    hint: str
    engines: str | None = None

    def found(self, text: str) -> dict[str, str] | None:
        """The named groups of every `match` when all are found in `text`, else None."""
        groups: dict[str, str] = {}
        for pattern in self.match:
            hit = re.search(pattern, text, re.MULTILINE)
            if hit is None:
                return None
            groups.update({k: v for k, v in hit.groupdict().items() if v is not None})
        return groups


class StartupHints(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: str
    hints: list[StartupHint]


@dataclass(frozen=True)
class StartFailure:
    """What a report says of a server that would not start, beside the harness's own error."""

    lines: tuple[str, ...]
    """The first line of its stderr that states an error (`Error: Cannot find module ...`), or its first line
    when none does, then the last few meaningful lines (Node.js ends with its version)."""
    case: str | None = None
    """The known case it matches (`not built`, `missing module`, `wrong Node.js version`, ...)."""
    hint: str | None = None
    """What to do about that case."""

    def clause(self) -> str:
        """`; its stderr: ... | ...; hint (case): ...` for the one line on stderr ("" when it has nothing)."""
        said = f"; its stderr: {' | '.join(self.lines)}" if self.lines else ""
        return f"{said}; hint ({self.case}): {self.hint}" if self.hint else said


def meaningful_lines(stderr: str, limit: int = LINE_CHARS) -> list[str]:
    """stderr's lines without blank lines, indented lines (stack frames, an error's properties, traceback
    frames) and Node.js's source location, caret and brace lines; each cut to `limit` characters."""
    kept = []
    for line in stderr.splitlines():
        if not line.strip() or line[:1].isspace() or any(p.search(line) for p in _NOISE):
            continue
        kept.append(_cut(line.rstrip(), limit))
    return kept


def diagnose(error: str, stderr: str, engines: str | None = None,
             hints: Sequence[StartupHint] | None = None) -> StartFailure:
    """The start failure `error` (the harness's words) with `stderr` (the server's): its meaningful lines and
    the first hint whose patterns are all found in the two; `engines` is the package.json's engines.node."""
    lines = meaningful_lines(stderr, LAST_WORDS_CHARS)
    first = next((line for line in lines if _ERROR_LINE.search(line)), None)
    if first is None and len(lines) > LAST_LINES:
        first = _cut(lines[0])  # its first words: what it is and how it serves (an HTTP fork's banner)
    last = [_cut(line) for line in lines if line != first][-LAST_LINES:]
    shown = (*([first] if first else []), *last)
    text = f"{error}\n{stderr}"
    for rule in default_hints() if hints is None else hints:
        groups = rule.found(text)
        if groups is None:
            continue
        hint = _fill(rule.hint, groups)
        if engines and rule.engines:
            hint += f" ({_fill(rule.engines, {**groups, 'engines': engines})})"
        return StartFailure(shown, rule.case, _cut(hint))
    return StartFailure(shown)


def _fill(template: str, groups: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: _cut(groups.get(m.group(1), m.group(0)), 200), template)


def _cut(text: str, limit: int = LINE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def hints_path() -> Path:
    return fixtures_dir() / "startup" / "hints.yaml"


def load_hints(path: Path | None = None) -> tuple[StartupHint, ...]:
    """Read and validate the hints; every pattern must compile and every placeholder be one of its groups."""
    path = path or hints_path()
    schema = fixtures_dir() / "schemas" / "startup_hints.schema.json"
    hints = read_validated_yaml(path, schema, StartupHints, StartupHintsError, "start-up hints").hints
    for rule in hints:
        groups: set[str] = set()
        for pattern in rule.match:
            try:
                groups |= set(re.compile(pattern).groupindex)
            except re.error as exc:
                raise StartupHintsError(f"{path}: hint {rule.id}: bad pattern {pattern!r}: {exc}") from None
        for template, known in ((rule.hint, groups), (rule.engines or "", groups | {"engines"})):
            unknown = set(re.findall(r"\{(\w+)\}", template)) - known
            if unknown:
                raise StartupHintsError(f"{path}: hint {rule.id} names {', '.join(sorted(unknown))}, "
                                        "which no pattern of it captures")
    return tuple(hints)


@cache
def default_hints() -> tuple[StartupHint, ...]:
    """The shipped hints, read once per process."""
    return load_hints()
