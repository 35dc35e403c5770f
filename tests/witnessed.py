"""compare's fixed witnesses run once between the reference and a test server, for tests of what they
reach (a fork's throwing render, its long thought, its box padded to another unit)."""

from __future__ import annotations

import shlex
import time

from conformance.compare.pair import Side, start_together
from conformance.compare.search import Candidate, Search
from conformance.targets.specs import resolve_target
from tests.servers import command


def witness_candidates(*server: str, listed: frozenset[str] = frozenset()) -> list[Candidate]:
    """The differences the fixed witnesses find between the reference and `tests/servers/<server…>` (the
    names either side lists, `listed`, never called as an unknown tool)."""
    fork = resolve_target("cmd:" + shlex.join(command(*server)))
    a, b = Side(resolve_target("reference"), 20.0), Side(fork, 20.0)
    start_together(a, b)
    search = Search(a, b, time.monotonic() + 600.0, cap=1000, listed=listed)
    try:
        search.witnesses()
    finally:
        a.close()
        b.close()
    return search.candidates
