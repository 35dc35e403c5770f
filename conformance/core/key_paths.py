"""Where a key missing at an answer's top level sits deeper, if anywhere: a field moved under an envelope
(`{"ok": true, "result": {…}}`) is said as absent at the top and found under `result`, never as null."""

from __future__ import annotations

from collections import deque
from typing import Final

from conformance.core.jsontypes import JSON

_DEPTH: Final = 4
"""How deep a moved key is looked for: an envelope or two; the answer is the server's, so it is bounded."""
_NODES: Final = 2000
"""How many objects and lists are visited at most: a hostile answer may nest wide."""


def found_at(value: JSON, key: str) -> str | None:
    """The dotted path (`result.thoughtHistoryLength`, `items[0].branches`) of the shallowest `key` below the
    top level of `value`, or None: breadth first, bounded in depth and in objects visited."""
    found = located(value, key)
    return found[0] if found is not None else None


def located(value: JSON, key: str) -> tuple[str, JSON] | None:
    """`found_at`'s path and the value found there."""
    queue: deque[tuple[JSON, str, int]] = deque([(value, "", 0)])
    visited = 0
    while queue and visited < _NODES:
        node, path, depth = queue.popleft()
        visited += 1
        if isinstance(node, dict):
            if depth and key in node:
                return (f"{path}.{key}" if path else key), node[key]
            if depth < _DEPTH:
                queue.extend((v, f"{path}.{k}" if path else str(k), depth + 1) for k, v in node.items())
        elif isinstance(node, list) and depth < _DEPTH:
            queue.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(node))
    return None


def absent_said(value: JSON, key: str) -> str:
    """A key the top level of an object lacks, in words true whatever the object holds: absent, and where
    it is found instead, when it is."""
    at = found_at(value, key)
    return f"no {key} at the top level" + (f" (it is at `{at}`)" if at else "")
