"""The order in which a benchmark measures its contenders each round: the same contenders, the first one
moving on by one each round, so that a machine's changing load falls on every contender alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

_T = TypeVar("_T")


def rotated(items: Sequence[_T], round_index: int) -> list[_T]:
    """`items` starting from position `round_index` (modulo their number), wrapping around."""
    shift = round_index % len(items)
    return [*items[shift:], *items[:shift]]
