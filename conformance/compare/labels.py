"""Readable names for the two sides of a comparison: what the report calls A and B everywhere but the
identity table, so a bullet never repeats a whole command line.

The defaults: an `npm:` target is its version (`2026.7.4`, `2026.7.4@today`), `reference` itself, a
`cmd:` target beside another `cmd:` the shortest part of its command that tells it from the other side's
(`base` / `head` for two checkouts that differ in one folder), and a `cmd:` target beside a release or the
reference its command, as `run` names it (a folder name alone reads as if it were a tool or a package).
Environment variables a target is started with follow its name.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePosixPath
from typing import Final

from conformance.targets.specs import split_env

MAX_LABEL: Final = 40
MAX_COMMAND_LABEL: Final = 60
"""A command named whole is kept to this length, its start and its entry file kept."""
MAX_ENV_VALUE: Final = 24
"""A variable's value beside a command named whole is kept to this length, by its end."""
GENERIC_PARTS: Final = frozenset({
    "", "dist", "build", "lib", "src", "out", "bin", "node_modules", "index.js", "main.js", "server.js",
    "index.mjs", "main.py", "__main__.py", "node", "python", "python3", "tmp", "usr", "home", "work",
    "-m", "npx", "--",
})
"""Command parts that name no side: interpreters, build folders, entry files."""


def default_labels(a: str, b: str) -> tuple[str, str]:
    """The two sides' names from their specs; never equal, never empty, one line each."""
    env_a, base_a = split_env(a)
    env_b, base_b = split_env(b)
    la = _label(_name(base_a, base_b), env_a, base_a, base_b)
    lb = _label(_name(base_b, base_a), env_b, base_b, base_a)
    if la == lb:
        la, lb = f"{la} (A)", f"{lb} (B)"
    return la, lb


def _label(name: str, env: dict[str, str], spec: str, other: str) -> str:
    """A command named whole is shortened apart from its variables, each then named with its value's end:
    cut together, a long command lost its entry file and its first variable's name (agiprolabs-ts read
    "node …/build/agiprolabs-ts/data +TRANSPORT_MODE=stdio", a data folder for a server)."""
    if spec.startswith("cmd:") and not other.startswith("cmd:"):
        return _whole_command(name) + _env(env, MAX_ENV_VALUE)
    return clean(name + _env(env))


def clean(label: str) -> str:
    """One line, printable, at most MAX_LABEL characters."""
    text = " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", label).split())
    return (text[: MAX_LABEL - 1] + "…") if len(text) > MAX_LABEL else (text or "?")


def _env(env: dict[str, str], value_chars: int | None = None) -> str:
    return "".join(f" +{k}={_value(v, value_chars)}" for k, v in sorted(env.items()))


def _value(value: str, chars: int | None) -> str:
    """A variable's value, kept to `chars` by its end (a path's last parts), cut at a path part's start."""
    text = " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", value).split())
    if chars is None or len(text) <= chars:
        return text
    tail = text[len(text) - chars + 1:]
    cut = tail.find("/")
    return "…" + (tail[cut:] if cut >= 0 else tail)


def _name(spec: str, other: str) -> str:
    if spec.startswith("npm:"):
        return spec.removeprefix("npm:")
    if spec.startswith("cmd:") and other.startswith("cmd:"):
        return _command_part(spec.removeprefix("cmd:"), other.removeprefix("cmd:"))
    return spec.removeprefix("cmd:")


def _whole_command(command: str) -> str:
    """The command on one line; a long one keeps its first word and its end (`node …/dist/index.js`)."""
    text = " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", command).split()) or "cmd"
    if len(text) <= MAX_COMMAND_LABEL:
        return text
    first = text.split(" ", 1)[0]
    # An interpreter named by its path is named by its file: chinng-py's ".venv/bin/python" read
    # "/work/r13-wild/build …/src/server.py", a folder for the command.
    first = (PurePosixPath(first).name or first)[:20]
    tail = text[len(text) - (MAX_COMMAND_LABEL - len(first) - 2):]
    cut = min((i for i in (tail.find("/"), tail.find(" ")) if i >= 0), default=-1)
    return f"{first} …{tail[cut:] if cut >= 0 else tail}"  # from a path part's start, never inside one


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _command_part(command: str, other: str) -> str:
    """The shortest path part of `command` that differs from `other`'s at the same place; without one,
    the deepest part that is not an interpreter, build folder or entry file."""
    mine, theirs = _words(command), _words(other)
    candidates: list[str] = []
    if theirs:
        for word, against in zip(mine, theirs, strict=False):
            if word == against:
                continue
            parts, others = PurePosixPath(word).parts, PurePosixPath(against).parts
            if len(parts) == len(others):
                candidates += [p for p, q in zip(parts, others, strict=True)
                               if p != q and p not in GENERIC_PARTS]
            else:
                candidates += _distinct_tail(parts, others)
            if candidates:
                break
        if not candidates and len(mine) != len(theirs):
            candidates = [w for w in mine[len(theirs):] if w not in GENERIC_PARTS]
    if candidates:
        return min(candidates, key=len)
    return _deepest(mine)


def _distinct_tail(parts: tuple[str, ...], others: tuple[str, ...]) -> list[str]:
    """Parts of a path not found in the other path (compared from both ends)."""
    seen = set(others)
    return [p for p in parts if p not in seen and p not in GENERIC_PARTS and p != "/"]


def _deepest(words: list[str]) -> str:
    for word in reversed(words):
        for part in reversed(PurePosixPath(word).parts):
            if part not in GENERIC_PARTS and part != "/":
                return part
    return words[-1] if words else "cmd"


__all__ = ["clean", "default_labels"]
