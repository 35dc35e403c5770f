"""Independent calls of a test made side by side: a witness signing, a meeting or a comparison spends most
of its wall time waiting on a fresh server process (its start, its answers, the end of its input) and little
on a core, so a test asking for several that do not depend on each other waits for them once."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
MOST = 4
"""Calls in flight at once: each holds a server process or two, and the machine may run other tests."""


def side_by_side(*calls: Callable[[], T]) -> list[T]:
    """Each call's result, in order; the first exception raised is raised here, after every call ended."""
    with ThreadPoolExecutor(max_workers=MOST, thread_name_prefix="side-by-side") as pool:
        futures = [pool.submit(call) for call in calls]
    return [future.result() for future in futures]
