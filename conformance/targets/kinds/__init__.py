"""The target kinds, by prefix: the one list the command line, the runner, compare and the atlas read.

A new kind is one module beside these (a `TargetKind`, see `kind.py`) and one entry in `KINDS`.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.core.identity import TargetIdentity
from conformance.targets.kinds import cmd, npm, reference
from conformance.targets.kinds.kind import TargetKind
from conformance.targets.specs import split_env

KINDS: dict[str, TargetKind] = {kind.prefix: kind for kind in (reference.KIND, npm.KIND, cmd.KIND)}
"""Prefix → kind, in the order the help lists them."""


def kind_of(base: str) -> TargetKind | None:
    """The kind of a spec without its environment variables (`npm:0.6.2`), or None when none claims it."""
    return next((kind for kind in KINDS.values() if kind.matches(base)), None)


def syntaxes(*, short: bool = False) -> list[str]:
    """Every kind's syntax, in the list's order."""
    return [kind.short_syntax if short else kind.syntax for kind in KINDS.values()]


def notes() -> list[str]:
    return [kind.note for kind in KINDS.values() if kind.note]


def one_of(choices: Sequence[str]) -> str:
    """`a, b or c`."""
    return f"{', '.join(choices[:-1])} or {choices[-1]}" if len(choices) > 1 else "".join(choices)


def unresolved_identity(spec: str) -> TargetIdentity:
    """What a report says of a target that could not be resolved: its spec, kind and environment."""
    env, base = split_env(spec)
    kind = kind_of(base) or reference.KIND  # unreachable from the command line, which checks the kind
    return kind.unresolved(base).model_copy(update={"spec": spec, "env": dict(sorted(env.items()))})


__all__ = ["KINDS", "TargetKind", "kind_of", "one_of", "syntaxes", "unresolved_identity"]
