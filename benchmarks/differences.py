"""Report-time text diffs: `word_difference` on two stderr boxes that differ in one word, at growing sizes,
and beside it the whole-text word matching it replaced (difflib over every word), on the sizes that one can
finish."""

from __future__ import annotations

import difflib
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Final

from conformance.core.differences import word_difference

SIZES: Final = (1_024, 4_096, 65_536, 1_048_576)
WHOLE_TEXT_UP_TO: Final = 4_096
"""The replaced approach is quadratic in words (a border is one word per character): 4,096 characters
take it about half a minute, 65,536 would take hours."""
_WORD: Final = re.compile(r"\s+|\w+|[^\w\s]")
"""conformance/core/differences.py's words: a border is one word per box-drawing character."""


@dataclass(frozen=True)
class DiffTiming:
    chars: int
    windowed_s: float
    whole_text_s: float | None


def box(chars: int, word: str) -> str:
    """A five-line box around a thought of `chars` characters, one word in its middle set to `word`."""
    half = "x" * max((chars - len(word)) // 2 - 1, 0)
    thought = f"{half} {word} {half}"
    border = "─" * (len(thought) + 4)
    return f"\n┌{border}┐\n│ 💭 Thought 1/1 │\n├{border}┤\n│ {thought}   │\n└{border}┘\n"


def _median_seconds(work: Callable[[], object], repetitions: int) -> float:
    times = []
    for _ in range(repetitions):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _whole_text(a: str, b: str) -> None:
    difflib.SequenceMatcher(None, _WORD.findall(a), _WORD.findall(b), autojunk=False).get_opcodes()


def measure(repetitions: int) -> list[DiffTiming]:
    """Per size, the median seconds of the windowed diff and (up to `WHOLE_TEXT_UP_TO`) of whole-text
    matching, on the same pair."""
    out = []
    for chars in SIZES:
        a, b = box(chars, "before"), box(chars, "after")
        windowed = _median_seconds(partial(word_difference, a, b), repetitions)
        whole = _median_seconds(partial(_whole_text, a, b), 1) if chars <= WHOLE_TEXT_UP_TO else None
        out.append(DiffTiming(chars, windowed, whole))
    return out
