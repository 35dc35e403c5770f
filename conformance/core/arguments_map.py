"""The original's argument names as a port spells them: a port whose `sequentialthinking` takes
`thought_number` where the original takes `thoughtNumber` refuses every call the suite sends, so without a
mapping it could be checked for nothing but that. A mapping (`--arguments-map FILE`, or a spelling's
name, `snake_case`, `kebab-case`, `PascalCase`, `lowercase`, `UPPERCASE`: the one the preflight detects and
confirms by a call, core/spellings.py) renames the keys of every frame the drivers write, and
the report says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from conformance.core.inputs import read_model
from conformance.core.protocol import ARGUMENT_NAMES
from conformance.core.spellings import OTHER_SPELLINGS, SNAKE_CASE, spell, spelling_map

__all__ = ["SNAKE_CASE", "ArgumentsMap", "Renamer", "load", "renames_of", "snake_case", "snake_case_map"]
MAP_BYTES: Final = 64 * 1024
"""A mapping is a few names: a file past this is not one."""
_NAME: Final = r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"
"""A plain identifier, or a kebab-case one (`thought-number`)."""
_MAX_NAMES: Final = 64


class ArgumentsMap(BaseModel):
    """`--arguments-map FILE`, JSON or YAML: `{"arguments": {"thoughtNumber": "thought_number", ...}}`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    arguments: dict[str, str] = Field(
        description="the original's argument name → the server's, each a plain identifier (at most 64 "
        "characters)",
        max_length=_MAX_NAMES,
    )

    @field_validator("arguments")
    @classmethod
    def _names(cls, value: dict[str, str]) -> dict[str, str]:
        for original, server in value.items():
            for name in (original, server):
                if not re.match(_NAME, name):
                    raise ValueError(f"{name!r} is not a plain argument name (letters, digits, _, -)")
        if len(set(value.values())) != len(value):
            raise ValueError("two of the original's names map to the same server name")
        return value


def load(path: Path) -> dict[str, str]:
    """The mapping of a file, read bounded and validated (JSON, or YAML for a .yaml/.yml name)."""
    yaml_syntax = path.suffix.lower() in (".yaml", ".yml")
    read = read_model(path, ArgumentsMap, what="arguments map", limit=MAP_BYTES, yaml_syntax=yaml_syntax)
    return {k: v for k, v in read.arguments.items() if k != v}


def snake_case(name: str) -> str:
    """`thoughtNumber` → `thought_number`, as Python ports spell the original's camelCase names."""
    return spell(name, SNAKE_CASE)


def snake_case_map(names: Iterable[str]) -> dict[str, str]:
    """Each name that snake_case changes, to its snake_case spelling."""
    return spelling_map(SNAKE_CASE, names)


class Renamer:
    """Renames object keys in frames written to the server: every `"thoughtNumber":` outside a string becomes
    `"thought_number":`. Keys are matched as written (a key spelled with escapes is left as it is: that is
    what an odd-keys check sends on purpose)."""

    __slots__ = ("_pattern", "_to", "renames")

    def __init__(self, renames: Mapping[str, str]) -> None:
        self.renames = dict(renames)
        self._to = {k.encode(): v.encode() for k, v in self.renames.items()}
        names = b"|".join(re.escape(k) for k in sorted(self._to, key=len, reverse=True))
        self._pattern = re.compile(rb'(?<!\\)"(' + names + rb')"(?=\s*:)')

    def frame(self, frame: bytes) -> bytes:
        if not self.renames:
            return frame
        return self._pattern.sub(lambda m: b'"' + self._to[m.group(1)] + b'"', frame)

    def arguments(self, arguments: dict[str, Any] | None) -> dict[str, Any] | None:
        """A call's arguments as the SDK client sends them: the top-level keys renamed."""
        if not self.renames or arguments is None:
            return arguments
        return {self.renames.get(k, k): v for k, v in arguments.items()}


def renames_of(value: str | None) -> dict[str, str]:
    """What `--arguments-map` asks for: nothing, the original's names in a spelling named (snake_case,
    kebab-case, …), or a file's mapping (refused in one line, exit status 4, when it cannot be read or is not
    one)."""
    if value is None:
        return {}
    if value in OTHER_SPELLINGS:
        return spelling_map(value, ARGUMENT_NAMES)
    return load(Path(value))
