"""The spellings a port or fork may give the original's argument names: camelCase (the original's own),
snake_case, kebab-case, PascalCase, lower case and UPPER case. One list, read by the argument-compatibility
stop (which spelling a port's schema uses, confirmed by a call) and by the suite's probe that sends the
original's call in every other spelling (a fork that also reads them shows it under every seed)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Final

from conformance.core.protocol import ARGUMENT_NAMES

CAMEL_CASE: Final = "camelCase"
SNAKE_CASE: Final = "snake_case"
KEBAB_CASE: Final = "kebab-case"
PASCAL_CASE: Final = "PascalCase"
LOWER_CASE: Final = "lowercase"
UPPER_CASE: Final = "UPPERCASE"


def _words(name: str) -> list[str]:
    """`branchFromThought` → branch, from, thought: the words a camelCase name joins."""
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)] or [name.lower()]


_SPELL: Final[dict[str, Callable[[list[str]], str]]] = {
    CAMEL_CASE: lambda w: w[0] + "".join(x.capitalize() for x in w[1:]),
    SNAKE_CASE: "_".join,
    KEBAB_CASE: "-".join,
    PASCAL_CASE: lambda w: "".join(x.capitalize() for x in w),
    LOWER_CASE: lambda w: "".join(w),
    UPPER_CASE: lambda w: "".join(w).upper(),
}

SPELLINGS: Final[tuple[str, ...]] = tuple(_SPELL)
"""Every spelling, the original's first; the order in which detection prefers one among equals."""
OTHER_SPELLINGS: Final[tuple[str, ...]] = SPELLINGS[1:]
LETTER_CASES: Final[frozenset[str]] = frozenset({PASCAL_CASE, LOWER_CASE, UPPER_CASE})
"""The spellings that differ from the original's only in letter case: a fork reading all three reads the
names ignoring case."""


def spell(name: str, spelling: str) -> str:
    """`thoughtNumber` in `spelling` (one of SPELLINGS): thought_number, thought-number, ThoughtNumber, …"""
    return _SPELL[spelling](_words(name))


def spelling_map(spelling: str, names: Iterable[str] = ARGUMENT_NAMES) -> dict[str, str]:
    """Each name that `spelling` changes, to its spelling (a mapping for `--arguments-map`)."""
    return {name: spell(name, spelling) for name in names if spell(name, spelling) != name}


def every_spelling(names: Iterable[str] = ARGUMENT_NAMES) -> frozenset[str]:
    """Each name in each spelling: what a schema's property may be called and be one of the original's."""
    return frozenset(spell(name, spelling) for name in names for spelling in SPELLINGS)


def spelling_named(renames: Mapping[str, str]) -> str | None:
    """Which spelling a mapping of the original's names is (every name it renames, renamed so), if one."""
    for spelling in OTHER_SPELLINGS:
        full = spelling_map(spelling)
        if renames and all(full.get(k) == v for k, v in renames.items()):
            return spelling
    return None


def detected(properties: Iterable[str]) -> str | None:
    """The other spelling most of whose respelled names a schema lists (at least one), earliest of equals;
    None when the schema lists none of them."""
    listed = set(properties)
    best, most = None, 0
    for spelling in OTHER_SPELLINGS:
        found = sum(1 for v in spelling_map(spelling).values() if v in listed)
        if found > most:
            best, most = spelling, found
    return best
