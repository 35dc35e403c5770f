"""The cyclic garbage collector as the command line sets it: collected less often than Python's default.

A `run` allocates millions of short-lived objects (imports building pydantic models, hypothesis drawing
examples, frames read and written) and almost no cyclic garbage; at the default first threshold (700
allocations) the collector runs a few hundred times while the command line and its runner are imported,
about a sixth of their CPU, and re-walks every long-lived object at each full collection. Ten thousand
keeps young cycles freed every few milliseconds of allocation and changes no result: which objects are
cyclic garbage does not depend on when it is collected.
"""

from __future__ import annotations

import gc
from typing import Final

FIRST_THRESHOLD: Final = 10_000
"""Allocations (less deallocations) of container objects between two collections of the youngest
generation; the older generations keep Python's ratios (each collected after ten of the one before)."""


def collect_less_often() -> None:
    """Raise the youngest generation's threshold to `FIRST_THRESHOLD` (never lower it: a caller that set a
    higher one, or disabled the collector, is left as it chose)."""
    first, second, third = gc.get_threshold()
    if first and first < FIRST_THRESHOLD:
        gc.set_threshold(FIRST_THRESHOLD, second, third)
